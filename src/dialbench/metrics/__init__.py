"""Trained turn-level dialogue metrics: a frozen multilingual sentence encoder + a small head.

`words` (language-aware tokens, perturbations, NSP negatives), `encoders` (packaged sentence
encoders, by name), `examples` (training pairs from a run store), `features`, `config` (the
training YAML and the scoring options), `translate` and `qe` (machine-translated training data
and its quality estimators, by name), `model` (the versioned model directory), `train` and
`score` (Judgments like an LLM judge's), `api` (`metric score` as one call). `diqad`: DiQAD's
0/1/2 dialogue-quality classifiers, by name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dialbench.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from dialbench.metrics.api import MetricScoreResult, score_metric
    from dialbench.metrics.config import MetricScoreConfig

__all__ = ["MetricScoreConfig", "MetricScoreResult", "score_metric"]

__getattr__ = lazy_exports(
    __name__, {".api": ["MetricScoreResult", "score_metric"], ".config": ["MetricScoreConfig"]}
)
