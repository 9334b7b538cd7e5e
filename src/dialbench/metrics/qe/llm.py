"""`llm`: a chat model's P(yes) that a translation is faithful and fluent, from next-token
log-probabilities (role `qe`, cached like every call); an unscored answer ranks last."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dialbench.llm.base import Message
from dialbench.llm.runner import Runner
from dialbench.llm.specs import ModelConfig
from dialbench.llm.yesno import YesNo
from dialbench.metrics.qe.estimator import QEResources
from dialbench.metrics.translate import TranslationRequest, language_name

LLM_PROMPT = (
    "Source ({source}): {text}\nTranslation ({target}): {translation}\n\n"
    "Is the translation faithful to the source and fluent {target}? Answer yes or no."
)


class LLMQualityEstimator:
    """P(yes) that a translation is faithful and fluent; every request in one stream of calls
    at the model's own concurrency."""

    def __init__(self, runner: Runner, model: str | ModelConfig) -> None:
        self.runner = runner
        self.model = runner.model(model, role="qe")

    @classmethod
    def from_resources(cls, resources: QEResources) -> LLMQualityEstimator:
        """The config's `qe_model`, else the translator with its limits."""
        return cls(resources.runner, resources.model or resources.translator_model)

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
