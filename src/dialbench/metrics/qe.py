"""Reference-free translation quality estimates, and keeping the top k% per language by rank.

- `embedding`: cosine between the source and its translation in the multilingual encoder;
- `round_trip_chrf`: translate back to the source language and compare with chrF (sacrebleu);
- `llm`: a chat model's P(yes) that the translation is faithful and fluent, from next-token
  log-probabilities (role `qe`, cached like every call); an unscored answer ranks last;
- `comet`: a COMET-QE / CometKiwi checkpoint through `unbabel-comet` (qe_comet.py).

Each estimator is a `QualityEstimator` made from the `QEResources` it needs; qe_registry.py
names them for the config.

Scores of different estimators and languages are not on one scale: selection is by rank within
each language (the top k%), never by a threshold.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from dialbench.llm.base import Message
from dialbench.llm.runner import Runner
from dialbench.llm.specs import ModelConfig
from dialbench.llm.yesno import YesNo
from dialbench.metrics.encoders import Encoder
from dialbench.metrics.translate import TranslationRequest, Translator, language_name

LLM_PROMPT = (
    "Source ({source}): {text}\nTranslation ({target}): {translation}\n\n"
    "Is the translation faithful to the source and fluent {target}? Answer yes or no."
)
KEEP_PERCENT = (5, 10, 20, 50, 75, 100)


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


@dataclass(frozen=True)
class EmbeddingSimilarity:
    encoder: Encoder

    def score(
        self, requests: Sequence[TranslationRequest], translations: Sequence[str]
    ) -> np.ndarray:
        return embedding_similarity(self.encoder, [r.text for r in requests], translations)


@dataclass(frozen=True)
class RoundTripChrf:
    translator: Translator

    def score(
        self, requests: Sequence[TranslationRequest], translations: Sequence[str]
    ) -> np.ndarray:
        return round_trip_chrf(self.translator, requests, translations)


def embedding_similarity(
    encoder: Encoder, sources: Sequence[str], translations: Sequence[str]
) -> np.ndarray:
    a, b = encoder.encode(sources), encoder.encode(translations)
    return np.asarray(np.einsum("ij,ij->i", a, b), dtype=np.float64)


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


class LLMQualityEstimator:
    """P(yes) that a translation is faithful and fluent; every request in one stream of calls
    at the model's own concurrency."""

    def __init__(self, runner: Runner, model: str | ModelConfig) -> None:
        self.runner = runner
        self.model = runner.model(model, role="qe")

    def score(
        self, requests: Sequence[TranslationRequest], translations: Sequence[str]
    ) -> np.ndarray:
        calls = [
            self.model.yes_probability(
                [
                    Message(
                        role="user",
                        content=LLM_PROMPT.format(
                            source=language_name(request.source),
                            target=language_name(request.target),
                            text=request.text,
                            translation=translation,
                        ),
                    )
                ]
            )
            for request, translation in zip(requests, translations, strict=True)
        ]
        answers = self.runner.run_sync(self.runner.gather(calls, "QE"))
        return np.array(
            [a.p_yes if isinstance(a, YesNo) and a.p_yes is not None else -1.0 for a in answers]
        )


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
