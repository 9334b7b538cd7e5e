"""MT augmentation: translate training examples into target languages, estimate each
translation's quality, keep the top k% per language by rank.

An example is kept whole or not at all: its response and the `history` context turns before it
are translated (a failed translation drops the example), and its quality is the lowest of its
texts'. Translated examples keep the human target of their source and their dialogue id, so a
held-out dialogue stays held out in every language; they only ever join training.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from dialbench.metrics.config import AugmentConfig
from dialbench.metrics.examples import Example
from dialbench.metrics.qe.estimator import QualityEstimator, keep_top
from dialbench.metrics.translate import TranslationRequest, Translator
from dialbench.schema import base_language


def _texts(example: Example, history: int) -> list[str]:
    context = [text for _, text in example.previous[-history:]] if history > 0 else []
    return [*context, example.response]


def augment(
    examples: Sequence[Example],
    config: AugmentConfig,
    translator: Translator,
    estimator: QualityEstimator,
    history: int,
) -> list[Example]:
    """`estimator` scores each translation; the top `config.keep_percent` % per language by
    that score are kept. Every language is translated in one call to the translator and scored
    in one call to the estimator, so a model's calls stream with no barrier per language."""
    source = config.source
    sources = [e for e in examples if base_language(e.language) == base_language(source)]
    texts = list(dict.fromkeys(t for e in sources for t in _texts(e, history)))
    requests = [
        TranslationRequest(text, source, target) for target in config.languages for text in texts
    ]
    outputs = translator.translate(requests)
    done = [(r, t) for r, t in zip(requests, outputs, strict=True) if t is not None]
    if not done:
        return []
    scores = estimator.score([r for r, _ in done], [t for _, t in done])
    into = {(r.target, r.text): t for r, t in done}
    score_of = {(r.target, r.text): float(s) for (r, _), s in zip(done, scores, strict=True)}
    translated: list[Example] = []
    quality: list[float] = []
    for target in config.languages:
        for example in sources:
            own = [(target, text) for text in _texts(example, history)]
            if not all(key in into for key in own):
                continue
            roles = [role for role, _ in example.previous[-history:]] if history > 0 else []
            translated.append(
                replace(
                    example,
                    language=target,
                    previous=tuple(zip(roles, (into[key] for key in own[:-1]), strict=True)),
                    response=into[own[-1]],
                )
            )
            quality.append(min(score_of[key] for key in own))
    keep = keep_top(quality, [e.language for e in translated], config.keep_percent)
    return [e for e, kept in zip(translated, keep, strict=True) if kept]
