"""Run stores of two versions of one chatbot with known judgments: the same seeds in English and
German, judged by the same judge under MEDAL's issues protocol. The baseline is repetitive on a
quarter of its seeds in both languages; the worse candidate is repetitive on every German seed;
the equal candidate is judged as the baseline is."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from dialbench.schema import Dialogue, Judgment, Participants, SeedContext, Target, Turn
from dialbench.store import RunStore
from tests.judge.scripted import ISSUE_KEYS

CHATBOT = "python:faq_bot:reply"
JUDGE = "judge-x"
LANGUAGES = ("en", "de")
SEEDS = 12


def repetitive_baseline(language: str, seed: int) -> bool:
    return seed % 4 == 0


def repetitive_in_german(language: str, seed: int) -> bool:
    return language == "de" or seed % 4 == 0


def make_run(
    path: Path,
    repetitive: Callable[[str, int], bool] = repetitive_baseline,
    chatbot: str = CHATBOT,
    judge: str = JUDGE,
) -> Path:
    """A run of `chatbot` on every seed, judged repetitive where `repetitive(language, seed)`."""
    dialogues, judgments = [], []
    for language in LANGUAGES:
        for seed in range(SEEDS):
            dialogue = Dialogue(
                language=language,
                source="medal",
                seed=SeedContext(language=language, scene=f"scene {seed}"),
                participants=Participants(user="local:user", assistant=chatbot),
                turns=[
                    Turn(role="user", text=f"question {seed}"),
                    Turn(role="assistant", text=f"{chatbot} answers {seed}", model=chatbot),
                ],
            )
            flagged = repetitive(language, seed)
            issues = {key: key == "repetitive" and flagged for key in ISSUE_KEYS}
            dialogues.append(dialogue)
            judgments.append(
                Judgment(
                    protocol="issues",
                    judge_model=judge,
                    target=Target(dialogue_id=dialogue.id),
                    parse_status="ok",
                    result={"issues": issues, "comments": {}, "overall": 2 if flagged else 5},
                )
            )
    with RunStore.open(path) as store, store.invocation("test") as run:
        store.add(dialogues, run)
        store.add(judgments, run)
    return path
