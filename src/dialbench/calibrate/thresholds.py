"""A decision threshold on a judge's value for a binary human label (an issue ticked, a turn
read as a breakdown).

The humans' label of an item is its share of annotators who said positive, so a crowd of thirty
weighs as it voted and one annotator as 0 or 1. The side that says positive is the one the
training items' positives lean to (a judge's high sensibleness is few breakdowns), unless a
`--detect` threshold states it. The threshold is one of the midpoints between the judge's
distinct values (or the extreme that calls every item positive): `f1` picks the one with the
highest F1 of the positive class against the humans' shares, `base-rate` the one that calls
items positive as often as the humans do (ties: the higher F1, then the fewer positives).
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from dialbench.calibrate.config import ThresholdMap, ThresholdRule

Side = Literal["most", "least"]


def leaning_side(judge: np.ndarray, share: np.ndarray) -> Side:
    """`least` where positives have the higher judge values on average, else `most`."""
    positive, negative = share.sum(), (1 - share).sum()
    above = (share * judge).sum() / positive >= ((1 - share) * judge).sum() / negative
    return "least" if above else "most"


def candidates(judge: np.ndarray, side: Side) -> np.ndarray:
    """The thresholds worth trying, from the fewest positives to the most."""
    distinct = np.unique(judge)
    middles = (distinct[1:] + distinct[:-1]) / 2
    if side == "most":
        return np.concatenate([middles, distinct[-1:]])
    return np.concatenate([middles[::-1], distinct[:1]])


def says_positive(judge: np.ndarray, threshold: np.ndarray, side: Side) -> np.ndarray:
    """Items x thresholds: whether each threshold calls each item positive."""
    if side == "most":
        return judge[:, None] <= threshold[None, :]
    return judge[:, None] >= threshold[None, :]


def soft_f1(predicted: np.ndarray, share: np.ndarray) -> np.ndarray:
    """F1 of the positive class per column of `predicted` (items x thresholds), each item
    counting as its share of positive annotators."""
    chosen = predicted.astype(float)
    tp = share @ chosen
    fp = (1 - share) @ chosen
    fn = share @ (1 - chosen)
    denominator = 2 * tp + fp + fn
    return np.asarray(np.divide(2 * tp, denominator, out=np.zeros_like(tp), where=denominator > 0))


def fit_threshold(
    judge: np.ndarray, share: np.ndarray, rule: ThresholdRule, side: Side | None = None
) -> ThresholdMap | str:
    """The threshold by `rule`, or why there is none (the humans' labels of one class only)."""
    if share.sum() == 0 or (1 - share).sum() == 0:
        return "the humans' labels are all of one class"
    side = side or leaning_side(judge, share)
    tried = candidates(judge, side)
    predicted = says_positive(judge, tried, side)
    f1 = soft_f1(predicted, share)
    if rule == "f1":
        best = int(np.argmax(f1))
    else:
        distance = np.abs(predicted.mean(axis=0) - share.mean())
        best = int(np.lexsort((-f1, distance))[0])
    return ThresholdMap(threshold=float(tried[best]), positive_at=side, rule=rule)


def apply_threshold(fitted: ThresholdMap, judge: np.ndarray) -> np.ndarray:
    """1.0 where the map calls the value positive, else 0.0."""
    threshold = np.array([fitted.threshold])
    return says_positive(judge, threshold, fitted.positive_at)[:, 0].astype(float)
