"""The quality estimators a training config can name (`augment.qe`): one line each."""

from __future__ import annotations

from collections.abc import Callable

from dialbench.metrics.qe import (
    EmbeddingSimilarity,
    LLMQualityEstimator,
    QEResources,
    QualityEstimator,
    RoundTripChrf,
)
from dialbench.metrics.qe_comet import CometQualityEstimator

ESTIMATORS: dict[str, Callable[[QEResources], QualityEstimator]] = {
    "embedding": lambda r: EmbeddingSimilarity(r.encoder()),
    "round_trip_chrf": lambda r: RoundTripChrf(r.translator),
    "llm": lambda r: LLMQualityEstimator(r.runner, r.model or r.translator_model),
    "comet": lambda r: CometQualityEstimator(r.model or CometQualityEstimator.DEFAULT),
}
