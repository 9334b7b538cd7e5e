"""Runs with a known truth: each chatbot turn has a latent quality, three annotators rate it 1-5
with noise, and a judge answers a function of it that the test chooses."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from dialbench.schema import Annotation, Dialogue, JudgeConfiguration, Judgment, Target, Turn
from dialbench.store import RunStore

JUDGE = "local:synthetic"
CONFIGURATION = JudgeConfiguration(options={"turns": "all"}, params={"temperature": 0.0})
Answer = Callable[[np.random.Generator, float], float]


def synthetic_run(
    path: Path,
    answer: Answer,
    dialogues: int = 40,
    turns: int = 6,
    seed: int = 0,
    language: str = "en",
) -> Path:
    """`dialogues` dialogues in `language` of `turns` chatbot turns each; every chatbot turn
    rated `quality` by three annotators (the latent quality, 1-5, plus noise, rounded) and by
    the judge, `answer(rng, latent)`. A second call adds to the same run."""
    rng = np.random.default_rng(seed)
    records: list[Dialogue | Annotation | Judgment] = []
    for d in range(dialogues):
        dialogue = Dialogue(
            language=language,
            turns=[
                Turn(role="user" if i % 2 == 0 else "assistant", text=f"{language} {d} turn {i}")
                for i in range(2 * turns)
            ],
        )
        records.append(dialogue)
        for turn in range(1, 2 * turns, 2):
            target = Target(dialogue_id=dialogue.id, turn_index=turn)
            latent = rng.uniform(1, 5)
            records += [
                Annotation(
                    annotator_id=f"a{k}",
                    target=target,
                    labels={"quality": int(np.clip(np.rint(latent + rng.normal(0, 0.5)), 1, 5))},
                )
                for k in range(3)
            ]
            records.append(
                Judgment(
                    protocol="submetrics",
                    judge_model=JUDGE,
                    target=target,
                    configuration=CONFIGURATION,
                    result={"quality": round(float(answer(rng, latent)), 4)},
                    parse_status="ok",
                )
            )
    with RunStore.open(path) as store, store.invocation("import") as run:
        store.add(records, run)
    return path
