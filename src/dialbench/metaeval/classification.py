"""Multi-class labels (DiQAD's 0/1/2, 1-5 scores, nominal labels) as a classification task.

Precision, recall and F1 are macro averages over the classes either side uses (a class nobody
predicted or labelled has no defined value and is left out of the mean); UAR is the unweighted
mean of per-class recall over the reference classes; kappa is unweighted Cohen's kappa. Spearman
and Pearson are given for ordered scales only.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import pearsonr, spearmanr
from sklearn.metrics import (
    accuracy_score,
    balanced_accuracy_score,
    cohen_kappa_score,
    precision_recall_fscore_support,
)

from dialbench.metaeval.rating_matrix import RatingMatrix
from dialbench.metaeval.references import ScoredRow, Scorer, scored_rows


class ClassificationRow(ScoredRow):
    accuracy: float | None = None
    uar: float | None = None
    kappa: float | None = None
    precision_macro: float | None = None
    recall_macro: float | None = None
    f1_macro: float | None = None
    spearman: float | None = None
    pearson: float | None = None


def _correlation(method: object, predicted: np.ndarray, reference: np.ndarray) -> float:
    if len(predicted) < 3 or np.ptp(predicted) == 0 or np.ptp(reference) == 0:
        return float("nan")
    return float(method(predicted, reference)[0])  # type: ignore[operator]


def multiclass_scores(ordered: bool) -> Scorer:
    """The scorer for one dimension; correlations only where the classes have an order."""

    def score(predicted: np.ndarray, reference: np.ndarray) -> dict[str, float]:
        precision, recall, f1, _ = precision_recall_fscore_support(
            reference, predicted, average="macro", zero_division=np.nan
        )
        scores = {
            "accuracy": float(accuracy_score(reference, predicted)),
            "uar": float(balanced_accuracy_score(reference, predicted)),
            "kappa": float(cohen_kappa_score(reference, predicted)),
            "precision_macro": float(precision),
            "recall_macro": float(recall),
            "f1_macro": float(f1),
        }
        if ordered:
            scores["spearman"] = _correlation(spearmanr, predicted, reference)
            scores["pearson"] = _correlation(pearsonr, predicted, reference)
        return scores

    return score


def classification(matrix: RatingMatrix, max_annotators: int) -> list[ClassificationRow]:
    scorer = multiclass_scores(ordered=matrix.spec.scale == "ordinal")
    return scored_rows(matrix, ClassificationRow, scorer, max_annotators)
