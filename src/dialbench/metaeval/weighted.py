"""Pearson, Spearman and Kendall's tau-b of many resamples at once, each resample given as the
multiplicity of every item (a row of weights), so a bootstrap costs a few matrix products rather
than a call per resample. With every weight 1 they are scipy's figures; with weights they are
scipy's figures on the data with each item repeated that often. Undefined (NaN) where fewer than
MIN_ITEMS distinct items carry weight or either side is constant."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.stats import kendalltau

MIN_ITEMS = 3
PAIR_MATRIX_MAX = 1000  # items; past this Kendall loops over resamples (memory n^2)
TINY = 1e-12


def _enough(weights: np.ndarray) -> np.ndarray:
    return np.asarray((weights > 0).sum(axis=1) >= MIN_ITEMS)


def pearson(x: np.ndarray, y: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """x and y: one value per item, or one row per resample (as the ranks of `spearman`)."""
    total = weights.sum(axis=1)
    safe = np.where(total > 0, total, 1.0)

    def mean(values: np.ndarray) -> np.ndarray:
        return np.asarray((weights * values).sum(axis=1) / safe)

    x = x - np.mean(x)  # centred first, so large values keep their precision
    y = y - np.mean(y)
    mx, my = mean(x), mean(y)
    xx, yy = mean(x * x), mean(y * y)
    vx, vy = xx - mx**2, yy - my**2
    defined = _enough(weights) & (vx > TINY * (xx + TINY)) & (vy > TINY * (yy + TINY))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (mean(x * y) - mx * my) / np.sqrt(vx * vy)
    return np.where(defined, np.clip(r, -1.0, 1.0), np.nan)


def midranks(x: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Each item's rank among the resample's values, ties sharing the mean of their ranks."""
    order = np.argsort(x, kind="stable")
    ordered = x[order]
    new = np.r_[True, ordered[1:] != ordered[:-1]]
    group = np.cumsum(new) - 1
    counts = np.add.reduceat(weights[:, order], np.flatnonzero(new), axis=1)
    below = np.cumsum(counts, axis=1) - counts
    ranks = np.empty_like(weights)
    ranks[:, order] = (below + (counts + 1) / 2)[:, group]
    return ranks


def spearman(x: np.ndarray, y: np.ndarray, weights: np.ndarray) -> np.ndarray:
    return pearson(midranks(x, weights), midranks(y, weights), weights)


def _pairs(weights: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """Sum over ordered item pairs of w_i * w_j * matrix[i, j], per resample."""
    return np.asarray(np.einsum("bi,bi->b", weights @ matrix, weights))


def kendall(x: np.ndarray, y: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """tau-b: (concordant - discordant) / sqrt(pairs untied in x * pairs untied in y)."""
    if len(x) > PAIR_MATRIX_MAX:
        return _kendall_each(x, y, weights)
    sx = np.sign(x[:, None] - x[None, :])
    sy = np.sign(y[:, None] - y[None, :])
    total = weights.sum(axis=1)
    pairs = total * (total - 1) / 2
    tied_x = (_pairs(weights, (sx == 0).astype(float)) - total) / 2
    tied_y = (_pairs(weights, (sy == 0).astype(float)) - total) / 2
    score = _pairs(weights, sx * sy) / 2
    denominator = (pairs - tied_x) * (pairs - tied_y)
    defined = _enough(weights) & (denominator > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = score / np.sqrt(denominator)
    return np.where(defined, np.clip(tau, -1.0, 1.0), np.nan)


def _kendall_each(x: np.ndarray, y: np.ndarray, weights: np.ndarray) -> np.ndarray:
    counts = weights.astype(int)
    out = np.full(len(weights), np.nan)
    for b, row in enumerate(counts):
        if (row > 0).sum() >= MIN_ITEMS:
            out[b] = kendalltau(np.repeat(x, row), np.repeat(y, row))[0]
    return out


METHODS: dict[str, Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]] = {
    "pearson": pearson,
    "spearman": spearman,
    "kendall": kendall,
}
