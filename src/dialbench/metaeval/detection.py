"""Issue detection: binary labels scored for the positive class (F1+) and the negative (F1-)."""

from __future__ import annotations

import numpy as np
from sklearn.metrics import accuracy_score, precision_recall_fscore_support

from dialbench.metaeval.panels import Panel
from dialbench.metaeval.references import ScoredRow, scored_rows


class DetectionRow(ScoredRow):
    """Metrics against each annotator, averaged (annotators count equally); counts are means."""

    precision: float | None = None
    recall: float | None = None
    f1_positive: float | None = None
    f1_negative: float | None = None
    accuracy: float | None = None
    predicted_positive: float | None = None
    reference_positive: float | None = None


def binary_scores(predicted: np.ndarray, reference: np.ndarray) -> dict[str, float]:
    precision, recall, f1, _ = precision_recall_fscore_support(
        reference, predicted, labels=[1.0, 0.0], zero_division=np.nan
    )
    return {
        "precision": float(precision[0]),
        "recall": float(recall[0]),
        "f1_positive": float(f1[0]),
        "f1_negative": float(f1[1]),
        "accuracy": float(accuracy_score(reference, predicted)),
        "predicted_positive": float(predicted.sum()),
        "reference_positive": float(reference.sum()),
    }


def detection(panel: Panel, max_annotators: int) -> list[DetectionRow]:
    return scored_rows(panel, DetectionRow, binary_scores, max_annotators)
