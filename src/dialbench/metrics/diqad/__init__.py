"""DiQAD's baselines: 0/1/2 dialogue-quality classifiers on spliced dialogues.

A dialogue becomes one text, "question: …" for user turns and "response: …" for the chatbot's
(DiQAD §5.1, `splice`). Labels come from a run: human annotations of whole dialogues, or the
judgments of an LLM judge one trusts (the holistic protocol's `quality`), which the classifier
then distils (`data`). Besides the held-out figures, the paper's two analyses: leave one domain
out (§5.3, cross-domain) and appending a positive or negative user reaction (sentiment
perturbation) (`evaluate`). `model` saves a classifier and judges dialogues with it; `train` is
`dialbench metric diqad train` (and the pipeline's `diqad` stage) as one call.

`DIQAD_CLASSIFIERS` names the classifiers: naive Bayes, logistic regression and gradient
boosting on word and character n-grams (`ngrams`), and logistic regression on a frozen sentence
encoder's embedding (`encoder`). A new one is a function from a seed to an unfitted scikit-learn
pipeline over spliced texts, and one line here (or a plugin's entry point, group
`dialbench.diqad_classifiers`). This module stays light (no scikit-learn): a pipeline file
checks classifier names without loading it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from dialbench.registry import Registry

if TYPE_CHECKING:
    from sklearn.pipeline import Pipeline


class ClassifierFactory(Protocol):
    def __call__(self, seed: int) -> Pipeline:
        """An unfitted pipeline from spliced dialogues to 0/1/2; `seed` for one that draws at
        random."""
        ...


DIQAD_CLASSIFIERS: Registry[ClassifierFactory] = Registry(
    "DiQAD classifier",
    {
        "bayes": "dialbench.metrics.diqad.ngrams:naive_bayes",
        "lr": "dialbench.metrics.diqad.ngrams:logistic_regression",
        "gb": "dialbench.metrics.diqad.ngrams:gradient_boosting",
        "encoder": "dialbench.metrics.diqad.encoder:encoder_logistic_regression",
    },
    group="diqad_classifiers",
)


def classifier(name: str, seed: int = 0) -> Pipeline:
    """The named classifier, unfitted."""
    return DIQAD_CLASSIFIERS.load(name)(seed)


def __getattr__(name: str) -> object:
    """Classifiers saved before this module became a package pickled the encoder classifier's
    features as `dialbench.metrics.diqad.EncoderFeatures`: they still load."""
    if name == "EncoderFeatures":
        from dialbench.metrics.diqad.encoder import EncoderFeatures

        return EncoderFeatures
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
