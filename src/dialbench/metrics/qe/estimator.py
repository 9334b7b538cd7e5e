"""What every quality estimator is, what it may draw on, and how its scores select: the top k%
of the translations into each language, by rank."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:
    from dialbench.llm.runner import Runner
    from dialbench.llm.specs import ModelConfig
    from dialbench.metrics.encoders import Encoder
    from dialbench.metrics.translate import TranslationRequest, Translator


class QualityEstimator(Protocol):
    def score(
        self, requests: Sequence[TranslationRequest], translations: Sequence[str]
    ) -> np.ndarray:
        """One estimate per translation of a request, whatever their language pairs (one
        stream of calls for all); higher is better, comparable only by rank within a pair."""
        ...


@dataclass(frozen=True)
class QEResources:
    """What an estimator may draw on; each takes what it needs."""

    encoder: Callable[[], Encoder]
    """Loads the frozen encoder only for an estimator that needs it (fine-tuning has none)."""
    translator: Translator
    translator_model: ModelConfig
    runner: Runner
    model: str | None
    """The config's `qe_model`: a chat model spec (llm) or a checkpoint (comet)."""


class EstimatorType(Protocol):
    """An estimator's class as `ESTIMATORS` holds it: every one is built the same way."""

    def from_resources(self, resources: QEResources) -> QualityEstimator: ...


def keep_top(scores: Sequence[float], groups: Sequence[str], percent: float) -> np.ndarray:
    """A mask keeping the best `percent` % of items (at least one) in each group, by rank."""
    values = np.asarray(scores, dtype=np.float64)
    labels = np.asarray(groups)
    keep = np.zeros(len(values), dtype=bool)
    for group in set(labels.tolist()):
        rows = np.flatnonzero(labels == group)
        n = max(1, math.ceil(len(rows) * percent / 100))
        order = rows[np.argsort(-values[rows], kind="stable")]
        keep[order[:n]] = True
    return keep
