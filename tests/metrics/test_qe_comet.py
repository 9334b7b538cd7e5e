"""COMET-QE / CometKiwi as a quality estimator (`qe: comet`).

`unbabel-comet` is an optional extra and no COMET checkpoint can be had offline, nor built small
(its models are XLM-R estimators trained by the package's own pipeline), so these tests stand a
fake object in for the loaded checkpoint: it answers `predict` the way COMET's does (an object
with `.scores`, one per {"src", "mt"} item). The missing-package test hides the package.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from dialbench.errors import DialbenchError
from dialbench.metrics.augment import augment
from dialbench.metrics.config import AugmentConfig
from dialbench.metrics.examples import Example
from dialbench.metrics.qe import ESTIMATORS
from dialbench.metrics.qe.comet import CometQualityEstimator
from dialbench.metrics.translate import TranslationRequest


@dataclass
class Prediction:
    scores: list[float]


class FakeCheckpoint:
    """Stands in for `comet.load_from_checkpoint(...)`: scores a translation by how many of its
    words are in the source, and records how it was called."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int, int]] = []

    def predict(self, data: Sequence[dict[str, str]], batch_size: int, gpus: int) -> Prediction:
        self.calls.append((len(data), batch_size, gpus))
        return Prediction(
            [
                len(set(item["src"].split()) & set(item["mt"].split())) / len(item["mt"].split())
                for item in data
            ]
        )


class Identity:
    """A translator that copies the source, garbling texts that end in an odd digit."""

    def translate(self, requests: Sequence[TranslationRequest]) -> list[str | None]:
        return [("zz qq " + r.text) if int(r.text[-1]) % 2 else r.text for r in requests]


def test_without_unbabel_comet_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "comet", None)  # import comet -> ImportError
    estimator = CometQualityEstimator("Unbabel/wmt22-cometkiwi-da")
    with pytest.raises(DialbenchError, match=r"pip install 'dialbench\[comet\]'"):
        estimator.score([TranslationRequest("Hello", "en", "de")], ["Hallo"])


def test_scores_come_from_the_checkpoints_predictions() -> None:
    estimator = CometQualityEstimator("wmt22-cometkiwi-da.ckpt", batch_size=4)
    checkpoint = FakeCheckpoint()
    estimator._model = checkpoint
    requests = [TranslationRequest("a b c", "en", "de"), TranslationRequest("a b c d", "en", "zh")]
    scores = estimator.score(requests, ["a b c", "x y a b"])
    assert scores.tolist() == [1.0, 0.5]
    assert checkpoint.calls == [(2, 4, 0)], "one predict call, the batch size given, on CPU"
    assert estimator.score([], []).size == 0
    assert checkpoint.calls == [(2, 4, 0)]


def test_augmentation_keeps_the_translations_comet_ranks_highest() -> None:
    config = AugmentConfig(translator="local:qwen2.5-0.5b", languages=["de"], qe="comet",
                           qe_model="model.ckpt", keep_percent=50)  # fmt: skip
    resources: Any = type("R", (), {"model": config.qe_model})()
    estimator = ESTIMATORS.load("comet").from_resources(resources)
    assert isinstance(estimator, CometQualityEstimator)
    assert estimator.checkpoint == "model.ckpt"
    estimator._model = FakeCheckpoint()
    examples = [
        Example(f"d{n}", 1, "en", (("user", f"hi {n}"),), "assistant", f"reply {n}", 1.0)
        for n in range(4, 8)
    ]
    kept = augment(examples, config, Identity(), estimator, history=1)
    assert {e.language for e in kept} == {"de"}
    assert sorted(e.dialogue_id for e in kept) == ["d4", "d6"]  # d5, d7: garbled
    assert np.all([e.response == f"reply {e.dialogue_id[1]}" for e in kept])


def test_an_unknown_estimator_is_a_config_error() -> None:
    with pytest.raises(ValueError, match="unknown estimator 'bleu'"):
        AugmentConfig(translator="local:qwen2.5-0.5b", languages=["de"], qe="bleu")
