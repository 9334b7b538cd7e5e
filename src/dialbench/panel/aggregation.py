"""Several members' values on one item and dimension as one, on the dimension's scale, never a
value between two classes.

- Labels (binary, nominal), under every method, and every scale under `majority`: the value
  with the most votes (the largest sum of weights). A tie goes to the positive class of a
  binary label (a panel split on an issue reports it, as metaeval takes a judge's tied
  samples), else to the lowest tied code (the first label in sorted order, the lower score).
- Ordinal scores under `median` and `weighted`: the (weighted) median, the lower of the two
  middle values where the weights split evenly.
- Interval scores under `median` and `weighted`: the (weighted) mean.

Unweighted methods weigh every vote 1; where the votes' weights sum to 0 (every member on the
item measured as agreeing with the humans no better than chance), they count equally."""

from __future__ import annotations

import numpy as np

from dialbench.metaeval.config import Scale
from dialbench.schema import PanelMethod

LABEL_SCALES: frozenset[Scale] = frozenset({"binary", "nominal"})


def _majority(codes: np.ndarray, weights: np.ndarray, scale: Scale) -> float:
    values = np.unique(codes)
    totals = np.array([weights[codes == value].sum() for value in values])
    tied = values[np.isclose(totals, totals.max())]
    if scale == "binary" and 1.0 in tied:
        return 1.0
    return float(tied.min())


def _median(codes: np.ndarray, weights: np.ndarray) -> float:
    order = np.argsort(codes, kind="stable")
    reached = np.cumsum(weights[order]) >= weights.sum() / 2 - 1e-12
    return float(codes[order][np.argmax(reached)])


def combine(codes: np.ndarray, weights: np.ndarray, scale: Scale, method: PanelMethod) -> float:
    """The panel's code from its members' codes (at least one) and their weights."""
    if method != "weighted" or weights.sum() <= 0:
        weights = np.ones_like(codes, dtype=float)
    if method == "majority" or scale in LABEL_SCALES:
        return _majority(codes, weights, scale)
    if scale == "ordinal":
        return _median(codes, weights)
    return float(np.average(codes, weights=weights))
