"""`round_trip_chrf`: translate back to the source language and compare with the source by chrF
(sacrebleu): what a translation lost shows in what comes back."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dialbench.metrics.qe.estimator import QEResources
from dialbench.metrics.translate import TranslationRequest, Translator


@dataclass(frozen=True)
class RoundTripChrf:
    translator: Translator

    @classmethod
    def from_resources(cls, resources: QEResources) -> RoundTripChrf:
        return cls(resources.translator)

    def score(
        self, requests: Sequence[TranslationRequest], translations: Sequence[str]
    ) -> np.ndarray:
        return round_trip_chrf(self.translator, requests, translations)


def round_trip_chrf(
    translator: Translator, requests: Sequence[TranslationRequest], translations: Sequence[str]
) -> np.ndarray:
    """chrF of each source against its translation translated back (0 where that failed); every
    translation goes back in one call to the translator."""
    from sacrebleu.metrics.chrf import CHRF

    back = translator.translate(
        [
            TranslationRequest(translation, request.target, request.source)
            for request, translation in zip(requests, translations, strict=True)
        ]
    )
    chrf = CHRF()
    return np.array(
        [
            chrf.sentence_score(b, [r.text]).score / 100 if b is not None else 0.0
            for r, b in zip(requests, back, strict=True)
        ]
    )
