"""Shared by the metric tests: a stand-in encoder, a scripted translator, a small annotated run
and dialogues graded 0/1/2 as a whole."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from dialbench.metrics.encoders import Encoder
from dialbench.metrics.translate import TranslationRequest
from dialbench.schema import Annotation, Dialogue, Target, Turn
from dialbench.store import RunStore

DIM = 16


def _vector(text: str) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big")
    v = np.random.default_rng(seed).normal(size=DIM)
    return v / np.linalg.norm(v)


def fake_encoder() -> Encoder:
    """Deterministic random unit vectors per text: fast, and enough to test the plumbing."""
    return Encoder("fake", "1", DIM, lambda texts: np.stack([_vector(t) for t in texts]))


def annotated_run(folder: Path) -> Path:
    """20 dialogues per language; a chatbot turn that says "sorry" is labelled a breakdown."""
    with RunStore.open(folder) as store, store.invocation("test") as run:
        dialogues, annotations = [], []
        for language in ("en", "de"):
            for n in range(20):
                texts = [f"hi {n}", "sorry" if n % 2 else f"hello {n}", f"how {n}", f"fine {n}"]
                turns = [
                    Turn(role=("user", "assistant")[i % 2], text=t) for i, t in enumerate(texts)
                ]
                d = Dialogue(language=language, turns=turns)
                dialogues.append(d)
                for i in (1, 3):
                    for rater in range(3):
                        label = "X" if texts[i] == "sorry" and rater < 2 else "O"
                        annotations.append(
                            Annotation(
                                annotator_id=f"r{rater}",
                                target=Target(dialogue_id=d.id, turn_index=i),
                                labels={"breakdown": label},
                            )
                        )
        store.add(dialogues, run)
        store.add(annotations, run)
    return folder


class ScriptedTranslator:
    """`<de>text</de>` out; back to the source exactly, except texts with "5" in them, which come
    back garbled (a bad translation the round trip should expose). `calls` holds, per call, its
    (source, target) pairs and how many requests it had."""

    name = "scripted"

    def __init__(self) -> None:
        self.calls: list[tuple[frozenset[tuple[str, str]], int]] = []

    @property
    def pairs(self) -> set[tuple[str, str]]:
        """Every (source, target) pair asked for."""
        return {pair for pairs, _ in self.calls for pair in pairs}

    def translate(self, requests: Sequence[TranslationRequest]) -> list[str | None]:
        self.calls.append((frozenset((r.source, r.target) for r in requests), len(requests)))
        return [self._one(r) for r in requests]

    @staticmethod
    def _one(request: TranslationRequest) -> str:
        text, target = request.text, request.target
        if target == "en":
            return text.split(">", 1)[1].rsplit("<", 1)[0]
        return f"<{target}>{'zz qq' if '5' in text else text}</{target}>"


QUALITY_REPLIES = {
    0: ["sorry I do not know", "what", "I cannot help"],
    1: ["maybe try the shop", "it depends on the weather", "perhaps later"],
    2: [
        "the museum opens at nine and is free on sundays",
        "take line 4 to the station",
        "the museum station is next to line 4",
    ],
}


def graded_dialogues() -> list[tuple[Dialogue, int, str]]:
    """60 English dialogues (dialogue, quality 0/1/2, domain a/b/c): the reply tells the
    quality, 20 dialogues per domain (their `source`)."""
    out = []
    for n in range(60):
        quality, domain = n % 3, "abc"[n // 20]
        reply = QUALITY_REPLIES[quality][(n // 3) % len(QUALITY_REPLIES[quality])]
        turns = [
            Turn(role="user", text=f"question {n} about {domain} travel"),
            Turn(role="assistant", text=reply),
        ]
        out.append((Dialogue(language="en", source=domain, turns=turns), quality, domain))
    return out


def graded_files(folder: Path) -> tuple[Path, Path]:
    """`graded_dialogues` as two JSONL files: the dialogues, each with its `quality` in its
    metadata (for `metric diqad train FILE`), and one dialogue-level `quality` annotation each
    (to import into a run)."""
    data = graded_dialogues()
    dialogues, annotations = folder / "dialogues.jsonl", folder / "annotations.jsonl"
    dialogues.write_text(
        "".join(
            d.model_copy(update={"metadata": {"quality": q}}).model_dump_json() + "\n"
            for d, q, _ in data
        )
    )
    annotations.write_text(
        "".join(
            Annotation(
                annotator_id="rater", target=Target(dialogue_id=d.id), labels={"quality": q}
            ).model_dump_json()
            + "\n"
            for d, q, _ in data
        )
    )
    return dialogues, annotations
