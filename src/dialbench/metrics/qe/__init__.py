"""Reference-free translation quality estimates, by the name a training config gives
(`augment.qe`):

- `embedding`: cosine between the source and its translation in the multilingual encoder;
- `round_trip_chrf`: translate back to the source language and compare with chrF (sacrebleu);
- `llm`: a chat model's P(yes) that the translation is faithful and fluent, from next-token
  log-probabilities (role `qe`, cached like every call); an unscored answer ranks last;
- `comet`: a COMET-QE / CometKiwi checkpoint through `unbabel-comet`.

A new estimator is one module here whose class is built `from_resources` (`estimator.py`), and
one line in `ESTIMATORS` (or a plugin's entry point, group `dialbench.qe_estimators`). Scores of
different estimators and languages are not on one scale: selection is by rank within each
language (`keep_top`), never by a threshold.
"""

from __future__ import annotations

from dialbench.metrics.qe.estimator import EstimatorType
from dialbench.registry import Registry

ESTIMATORS: Registry[EstimatorType] = Registry(
    "estimator",
    {
        "embedding": "dialbench.metrics.qe.embedding:EmbeddingSimilarity",
        "round_trip_chrf": "dialbench.metrics.qe.round_trip_chrf:RoundTripChrf",
        "llm": "dialbench.metrics.qe.llm:LLMQualityEstimator",
        "comet": "dialbench.metrics.qe.comet:CometQualityEstimator",
    },
    group="qe_estimators",
)
