"""`embedding`: the cosine between a source and its translation in the frozen multilingual
encoder, which places a sentence and its translation close together."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dialbench.metrics.encoders import Encoder
from dialbench.metrics.qe.estimator import QEResources
from dialbench.metrics.translate import TranslationRequest


@dataclass(frozen=True)
class EmbeddingSimilarity:
    encoder: Encoder

    @classmethod
    def from_resources(cls, resources: QEResources) -> EmbeddingSimilarity:
        return cls(resources.encoder())

    def score(
        self, requests: Sequence[TranslationRequest], translations: Sequence[str]
    ) -> np.ndarray:
        return embedding_similarity(self.encoder, [r.text for r in requests], translations)


def embedding_similarity(
    encoder: Encoder, sources: Sequence[str], translations: Sequence[str]
) -> np.ndarray:
    a, b = encoder.encode(sources), encoder.encode(translations)
    return np.asarray(np.einsum("ij,ij->i", a, b), dtype=np.float64)
