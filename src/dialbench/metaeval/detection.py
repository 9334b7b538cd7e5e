"""Detection: binary labels scored for the positive class (F1+) and the negative (F1-).

A rater is scored against each annotator on the items both rated, and the figures are averaged
over annotators (MEDAL, Finch et al.); the human ceiling is each annotator scored the same way
against each other one. The confusion counts of every rater against every annotator are four
matrix products, so a crowd (DBDC3: 30 labels per turn from a pool of a hundred annotators)
costs milliseconds and its ceiling is never skipped.
"""

from __future__ import annotations

import numpy as np

from dialbench.metaeval.panels import Panel, defined
from dialbench.metaeval.references import HUMAN_CEILING, ScoredRow


class DetectionRow(ScoredRow):
    """Metrics against each annotator, averaged (annotators count equally); counts are means."""

    precision: float | None = None
    recall: float | None = None
    f1_positive: float | None = None
    f1_negative: float | None = None
    accuracy: float | None = None
    predicted_positive: float | None = None
    reference_positive: float | None = None


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """NaN where the denominator is zero: a figure with nothing to count is undefined."""
    out = np.full(numerator.shape, np.nan)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def confusion_scores(
    predicted: np.ndarray, reference: np.ndarray
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Each column of `predicted` against each column of `reference` (items x raters of 1, 0 or
    NaN), on the items both rated: every metric as a raters x references matrix, and the number
    of shared items. F1 is 2TP / (2TP + FP + FN), as scikit-learn computes it."""
    said_yes, said_no = (predicted == 1).astype(float), (predicted == 0).astype(float)
    is_yes, is_no = (reference == 1).astype(float), (reference == 0).astype(float)
    tp, fp = said_yes.T @ is_yes, said_yes.T @ is_no
    fn, tn = said_no.T @ is_yes, said_no.T @ is_no
    shared = tp + fp + fn + tn
    scores = {
        "precision": _ratio(tp, tp + fp),
        "recall": _ratio(tp, tp + fn),
        "f1_positive": _ratio(2 * tp, 2 * tp + fp + fn),
        "f1_negative": _ratio(2 * tn, 2 * tn + fp + fn),
        "accuracy": _ratio(tp + tn, shared),
        "predicted_positive": tp + fp,
        "reference_positive": tp + fn,
    }
    return scores, shared


def _row(
    panel: Panel, rater: str, scores: dict[str, np.ndarray], shared: np.ndarray
) -> DetectionRow:
    """One rater's figures averaged over the references it shares an item with."""
    usable = shared > 0
    if not usable.any():
        return DetectionRow(
            dimension=panel.dimension,
            language=panel.language,
            rater=rater,
            n_items=0,
            n_references=0,
            note="no shared items",
        )
    means: dict[str, float | None] = {}
    for name, values in scores.items():
        finite = values[usable][np.isfinite(values[usable])]
        means[name] = defined(float(finite.mean())) if finite.size else None
    undefined = [name for name, value in means.items() if value is None]
    return DetectionRow(
        dimension=panel.dimension,
        language=panel.language,
        rater=rater,
        n_items=int(shared[usable].max()),
        n_references=int(usable.sum()),
        note=f"undefined: {', '.join(undefined)}" if undefined else None,
        **means,
    )


def detection(panel: Panel) -> list[DetectionRow]:
    """Every judge against every annotator, then the human ceiling when there are two or more."""
    humans = panel.humans.to_numpy(dtype=float)
    judges, shared = confusion_scores(panel.judges.to_numpy(dtype=float), humans)
    rows = [
        _row(panel, str(judge), {name: m[i] for name, m in judges.items()}, shared[i])
        for i, judge in enumerate(panel.judges.columns)
    ]
    if len(panel.annotators) >= 2:
        pairs, shared = confusion_scores(humans, humans)
        np.fill_diagonal(shared, 0)  # an annotator against itself is no reference
        rows.append(
            _row(panel, HUMAN_CEILING, {n: m.ravel() for n, m in pairs.items()}, shared.ravel())
        )
    return rows
