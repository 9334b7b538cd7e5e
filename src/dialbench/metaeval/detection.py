"""Issue detection: binary labels scored for the positive class (F1+) and the negative (F1-)."""

from __future__ import annotations

import numpy as np
from sklearn.metrics import accuracy_score, precision_recall_fscore_support

from dialbench.metaeval.panels import Panel
from dialbench.metaeval.references import scored_raters
from dialbench.schema import Record

METRICS = (
    "precision",
    "recall",
    "f1_positive",
    "f1_negative",
    "accuracy",
    "predicted_positive",
    "reference_positive",
)


class DetectionRow(Record):
    """Metrics against each annotator, averaged (annotators count equally); counts are means."""

    dimension: str
    language: str
    rater: str
    n_items: int
    n_references: int
    precision: float | None
    recall: float | None
    f1_positive: float | None
    f1_negative: float | None
    accuracy: float | None
    predicted_positive: float | None
    reference_positive: float | None
    note: str | None = None


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
    return [
        DetectionRow(
            dimension=panel.dimension,
            language=panel.language,
            rater=s.rater,
            n_items=s.n_items,
            n_references=s.n_references,
            note=s.note,
            **{name: s.metrics.get(name) for name in METRICS},
        )
        for s in scored_raters(panel, binary_scores, max_annotators)
    ]
