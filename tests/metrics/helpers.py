"""Shared by the metric tests: a stand-in encoder, a scripted translator and a small annotated
run."""

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
    with RunStore.open(folder) as store, store.run("test") as run:
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
