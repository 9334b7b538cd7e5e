"""DiQAD's classical baselines: 0/1/2 dialogue-quality classifiers on spliced dialogues.

A dialogue becomes one text, "question: …" for user turns and "response: …" for the chatbot's
(DiQAD §5.1); naive Bayes, logistic regression and gradient boosting learn from word and
character n-grams (characters carry Chinese and Japanese). Labels come from a run: human
annotations of whole dialogues, or the judgments of an LLM judge one trusts (the holistic
protocol's `quality`), which the classifier then distils. Also the paper's two analyses: leave
one domain out (§5.3, cross-domain) and appending a positive or negative user reaction
(sentiment perturbation).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Literal

import numpy as np
from scipy.stats import pearsonr, spearmanr
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import (
    accuracy_score,
    balanced_accuracy_score,
    cohen_kappa_score,
    precision_recall_fscore_support,
)
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import Pipeline, make_pipeline, make_union

from dialbench.schema import Annotation, Dialogue, Judgment, base_language
from dialbench.store import RunStore

Classifier = Literal["bayes", "lr", "gb"]
CLASSIFIERS: tuple[Classifier, ...] = ("bayes", "lr", "gb")
Sentiment = Literal["original", "pos", "neg"]
# The paper's templates (English, and its Chinese originals).
POSITIVE = {
    "en": "question: ok thanks! response: you are welcome!",
    "zh": "question: 好的多谢！response: 不谢！",
}
NEGATIVE = {"en": "question: I don't think so.", "zh": "question: 不是这样的。"}


def splice(dialogue: Dialogue, sentiment: Sentiment = "original") -> str:
    parts = [f"{'question' if t.role == 'user' else 'response'}: {t.text}" for t in dialogue.turns]
    language = "zh" if base_language(dialogue.language) == "zh" else "en"
    if sentiment == "pos":
        parts.append(POSITIVE[language])
    elif sentiment == "neg":
        parts.append(NEGATIVE[language])
    return " ".join(parts)


def classifier(name: Classifier, seed: int = 0) -> Pipeline:
    features = make_union(
        TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True, max_features=50_000),
        TfidfVectorizer(
            analyzer="char_wb", ngram_range=(2, 4), min_df=2, sublinear_tf=True, max_features=50_000
        ),
    )
    if name == "bayes":
        return make_pipeline(features, MultinomialNB(alpha=0.1))
    if name == "lr":
        return make_pipeline(
            features, LogisticRegression(C=4.0, max_iter=2000, class_weight="balanced")
        )
    return make_pipeline(
        features, GradientBoostingClassifier(n_estimators=100, max_depth=3, random_state=seed)
    )


def dialogue_labels(store: RunStore, dimension: str, protocol: str | None = None) -> dict[str, int]:
    """Dialogue id -> 0/1/2: the rounded mean over annotators (or judges and samples)."""
    values: dict[str, list[float]] = defaultdict(list)
    if protocol is None:
        for annotation in store.records(Annotation):
            value = annotation.labels.get(dimension)
            if annotation.target.kind == "dialogue" and isinstance(value, int | float):
                values[annotation.target.dialogue_id].append(float(value))
    else:
        for judgment in store.records(Judgment, protocol=protocol):
            value = (judgment.result or {}).get(dimension)
            if judgment.target.kind == "dialogue" and isinstance(value, int | float):
                values[judgment.target.dialogue_id].append(float(value))
    return {key: int(np.clip(round(float(np.mean(v))), 0, 2)) for key, v in values.items()}


def scores(truth: Sequence[int], predicted: Sequence[int]) -> dict[str, float | None]:
    """DiQAD's figures: accuracy, UAR, kappa, Spearman, Pearson, macro P/R/F1."""
    y, p = np.asarray(truth), np.asarray(predicted)
    constant = np.ptp(y) == 0 or np.ptp(p) == 0
    precision, recall, f1, _ = precision_recall_fscore_support(
        y, p, average="macro", zero_division=0
    )
    return {
        "accuracy": float(accuracy_score(y, p)),
        "uar": float(balanced_accuracy_score(y, p)),
        "kappa": None if constant else float(cohen_kappa_score(y, p)),
        "spearman": None if constant else float(spearmanr(y, p)[0]),
        "pearson": None if constant else float(pearsonr(y, p)[0]),
        "precision": float(precision),
        "recall": float(recall),
        "f1": float(f1),
    }


def cross_domain(
    name: Classifier,
    texts: Sequence[str],
    labels: Sequence[int],
    domains: Sequence[str],
    seed: int = 0,
) -> dict[str, dict[str, float | None]]:
    """For each domain: trained without it, tested on it."""
    x, y, d = np.asarray(texts, dtype=object), np.asarray(labels), np.asarray(domains)
    figures = {}
    for domain in sorted(set(domains)):
        held = d == domain
        model = classifier(name, seed).fit(x[~held], y[~held])
        figures[domain] = scores(y[held], model.predict(x[held]))
    return figures


def sentiment_shift(model: Pipeline, dialogues: Sequence[Dialogue]) -> dict[str, float]:
    """Mean predicted quality of the dialogues as they are, and with a positive or a negative
    user reaction appended."""
    return {
        sentiment: float(np.mean(model.predict([splice(d, sentiment) for d in dialogues])))
        for sentiment in ("original", "pos", "neg")
    }
