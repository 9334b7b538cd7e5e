"""Detection: binary labels scored for the positive class (F1+) and the negative (F1-).

A rater is scored against each annotator on the items both rated, and the figures are averaged
over annotators (MEDAL, Finch et al.); the human ceiling is each annotator scored the same way
against each other one, on the judges' items. The confusion counts of every rater against every
annotator are four matrix products, so a crowd (DBDC3: 30 labels per turn from a pool of over a
thousand annotators) is never skipped. F1+ has a 95% interval from the bootstrap over dialogues
(`clusters`): each resample's counts are sparse products over the (rater, annotator) pairs that
share an item, so it grows with the labels, not with the square of the crowd.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from dialbench.metaeval.inference import infer, observed_and_resampled
from dialbench.metaeval.rating_matrix import RatingMatrix, defined
from dialbench.metaeval.references import ScoredRow, ceiling_matrices, paired_items
from dialbench.resampling import ClusterResamples

RESAMPLE_CELLS = 5_000_000  # resamples x pairs held at once (40 MB a count)


class DetectionRow(ScoredRow):
    """Metrics against each annotator, averaged (annotators count equally); counts are means."""

    precision: float | None = None
    recall: float | None = None
    f1_positive: float | None = None
    f1_positive_low: float | None = None
    f1_positive_high: float | None = None
    f1_negative: float | None = None
    accuracy: float | None = None
    predicted_positive: float | None = None
    reference_positive: float | None = None
    n_dialogues: int = 0


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


def _pair_counts(
    predicted: np.ndarray, reference: np.ndarray, same_raters: bool
) -> list[sparse.csr_matrix]:
    """Items x (rater, annotator) pairs that share an item: one 0/1 matrix per count F1 reads
    (TP, FP, FN); an annotator is no reference for itself."""
    item, rater = np.nonzero(~np.isnan(predicted))
    entries = []
    for t in np.unique(item):
        raters = rater[item == t]
        references = np.flatnonzero(~np.isnan(reference[t]))
        a, b = np.repeat(raters, len(references)), np.tile(references, len(raters))
        keep = a != b if same_raters else np.ones(len(a), bool)
        said, truth = predicted[t, a[keep]], reference[t, b[keep]]
        kind = 2 * (said == 0) + (truth == 0)  # 0 TP, 1 FP, 2 FN, 3 TN
        entries.append((np.full(keep.sum(), t), a[keep] * reference.shape[1] + b[keep], kind))
    if not entries:
        return []
    items, pair_keys, kinds = (np.concatenate(part) for part in zip(*entries, strict=True))
    _, pair = np.unique(pair_keys, return_inverse=True)
    shape = (len(predicted), int(pair.max()) + 1)
    return [
        sparse.csr_matrix(
            (np.ones((kinds == k).sum()), (items[kinds == k], pair[kinds == k])), shape
        )
        for k in range(3)
    ]


def resampled_f1(
    predicted: np.ndarray, reference: np.ndarray, weights: np.ndarray, same_raters: bool
) -> np.ndarray:
    """F1+ averaged over the pairs that share an item, for each row of item weights."""
    counts = _pair_counts(predicted, reference, same_raters)
    out = np.full(len(weights), np.nan)
    if not counts:
        return out
    step = max(1, RESAMPLE_CELLS // counts[0].shape[1])
    for start in range(0, len(weights), step):
        block = weights[start : start + step]
        tp, fp, fn = (np.asarray((m.T @ block.T).T) for m in counts)
        f1 = _ratio(2 * tp, 2 * tp + fp + fn)  # NaN where undefined, or no item shared
        finite = np.isfinite(f1)
        sums, n = np.where(finite, f1, 0).sum(axis=1), finite.sum(axis=1)
        out[start : start + step] = np.where(n > 0, sums / np.maximum(n, 1), np.nan)
    return out


def _row(
    matrix: RatingMatrix,
    rater: str,
    scores: dict[str, np.ndarray],
    shared: np.ndarray,
    n_items: int,
    f1: np.ndarray,
    n_dialogues: int,
) -> DetectionRow:
    """One rater's figures averaged over the references it shares an item with."""
    usable = shared > 0
    if not usable.any():
        return DetectionRow(
            dimension=matrix.dimension,
            language=matrix.language,
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
    interval = infer(f1, n_dialogues, test_zero=False)
    notes = [f"undefined: {', '.join(undefined)}" if undefined else None, interval.note]
    return DetectionRow(
        dimension=matrix.dimension,
        language=matrix.language,
        rater=rater,
        n_items=n_items,
        n_references=int(usable.sum()),
        note="; ".join(filter(None, notes)) or None,
        f1_positive_low=interval.low,
        f1_positive_high=interval.high,
        n_dialogues=n_dialogues,
        **means,
    )


def detection(matrix: RatingMatrix, resamples: int, seed: int) -> list[DetectionRow]:
    """Every judge against every annotator, then the human ceiling on the judges' items when
    there are two or more annotators."""
    humans = matrix.humans.to_numpy(dtype=float)
    judges, shared = confusion_scores(matrix.judges.to_numpy(dtype=float), humans)
    rows = []
    for i, judge in enumerate(matrix.judges.columns):
        items = matrix.judged(judge)
        drawn = ClusterResamples.draw(matrix.clusters[items], resamples, seed)
        on = matrix.on(items)
        f1 = resampled_f1(
            on.judges[[judge]].to_numpy(float),
            on.humans.to_numpy(float),
            observed_and_resampled(drawn),
            False,
        )
        scores = {name: m[i] for name, m in judges.items()}
        rows.append(_row(matrix, str(judge), scores, shared[i], len(items), f1, drawn.n_clusters))
    if len(matrix.annotators) < 2:
        return rows
    for name, part in ceiling_matrices(matrix):
        labels = part.humans.to_numpy(dtype=float)
        pairs, shared = confusion_scores(labels, labels)
        np.fill_diagonal(shared, 0)  # an annotator against itself is no reference
        drawn = ClusterResamples.draw(part.clusters, resamples, seed)
        f1 = resampled_f1(labels, labels, observed_and_resampled(drawn), True)
        flat = {n: m.ravel() for n, m in pairs.items()}
        rows.append(
            _row(matrix, name, flat, shared.ravel(), paired_items(part), f1, drawn.n_clusters)
        )
    return rows
