"""DiQAD's encoder classifier without fine-tuning: logistic regression on each spliced
dialogue's embedding by a frozen packaged sentence encoder."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline, make_pipeline

from dialbench.metrics.encoders import DEFAULT_ENCODER, Encoder, load_encoder

_encoder = cache(load_encoder)
_embedded: dict[tuple[str, str], np.ndarray] = {}
MEMO_SIZE = 100_000


class EncoderFeatures(BaseEstimator, TransformerMixin):  # type: ignore[misc]
    """Each spliced dialogue embedded by a frozen packaged encoder. Only the encoder's name is
    saved with a model, never its weights. Embeddings are remembered: the cross-domain test
    fits once per domain on the same texts."""

    def __init__(self, encoder: str = DEFAULT_ENCODER) -> None:
        self.encoder = encoder

    def fit(self, texts: Sequence[str], labels: Any = None) -> EncoderFeatures:
        return self

    def transform(self, texts: Sequence[str]) -> np.ndarray:
        new = [t for t in dict.fromkeys(texts) if (self.encoder, t) not in _embedded]
        if new:
            if len(_embedded) + len(new) > MEMO_SIZE:
                _embedded.clear()
            loaded: Encoder = _encoder(self.encoder)
            _embedded.update(
                ((self.encoder, t), v) for t, v in zip(new, loaded.encode(new), strict=True)
            )
        return np.stack([_embedded[(self.encoder, t)] for t in texts])


def encoder_logistic_regression(seed: int) -> Pipeline:
    return make_pipeline(
        EncoderFeatures(), LogisticRegression(C=1.0, max_iter=2000, class_weight="balanced")
    )
