"""DiQAD's figures for a classifier: on held-out dialogues, per domain left out of training
(§5.3), and the mean prediction with a positive or negative user reaction appended."""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence

import numpy as np
from pydantic import Field
from scipy.stats import pearsonr, spearmanr
from sklearn.metrics import (
    accuracy_score,
    balanced_accuracy_score,
    cohen_kappa_score,
    precision_recall_fscore_support,
)
from sklearn.pipeline import Pipeline

from dialbench.metrics.diqad import classifier
from dialbench.metrics.diqad.splice import splice
from dialbench.schema import Dialogue, Record

Figures = dict[str, float | None]


def scores(truth: Sequence[int], predicted: Sequence[int]) -> Figures:
    """DiQAD's figures: accuracy, UAR, kappa, Spearman, Pearson, macro P/R/F1."""
    y, p = np.asarray(truth), np.asarray(predicted)
    constant = np.ptp(y) == 0 or np.ptp(p) == 0
    precision, recall, f1, _ = precision_recall_fscore_support(
        y, p, average="macro", zero_division=0
    )
    with warnings.catch_warnings():  # a left-out domain may lack a class: UAR averages the rest
        warnings.simplefilter("ignore", UserWarning)
        uar = float(balanced_accuracy_score(y, p))
    return {
        "accuracy": float(accuracy_score(y, p)),
        "uar": uar,
        "kappa": None if constant else float(cohen_kappa_score(y, p)),
        "spearman": None if constant else float(spearmanr(y, p)[0]),
        "pearson": None if constant else float(pearsonr(y, p)[0]),
        "precision": float(precision),
        "recall": float(recall),
        "f1": float(f1),
    }


def cross_domain(
    name: str,
    texts: Sequence[str],
    labels: Sequence[int],
    domains: Sequence[str],
    seed: int = 0,
) -> dict[str, Figures]:
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


class ClassifierEvaluation(Record):
    classifier: str
    seconds: float = Field(description="fitting on the training dialogues")
    heldout: Figures
    cross_domain: dict[str, Figures] = Field(description="domain -> trained without it")
    sentiment: dict[str, float] = Field(description="mean prediction: original, pos, neg")


def evaluate(
    name: str,
    dialogues: Sequence[Dialogue],
    labels: Sequence[int],
    domains: Sequence[str],
    heldout: Sequence[bool],
    seed: int = 0,
) -> tuple[ClassifierEvaluation, Pipeline]:
    """Fit on the training dialogues; figures on the held-out ones, leave-one-domain-out over
    all of them (when there are two domains or more), and the sentiment shift of the held-out
    ones. Returns the fitted model too."""
    texts = np.asarray([splice(d) for d in dialogues], dtype=object)
    y, dev = np.asarray(labels), np.asarray(heldout, dtype=bool)
    unfitted = classifier(name, seed)  # its module imported before the clock starts
    started = time.perf_counter()
    model = unfitted.fit(texts[~dev], y[~dev])
    seconds = time.perf_counter() - started
    report = ClassifierEvaluation(
        classifier=name,
        seconds=round(seconds, 2),
        heldout=scores(y[dev].tolist(), model.predict(texts[dev]).tolist()),
        cross_domain=(
            cross_domain(name, texts.tolist(), labels, domains, seed)
            if len(set(domains)) > 1
            else {}
        ),
        sentiment=sentiment_shift(
            model, [d for d, is_dev in zip(dialogues, dev, strict=True) if is_dev]
        ),
    )
    return report, model
