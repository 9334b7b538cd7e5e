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
FEW_VALUES = 32  # Kendall by groups of equal values when one side has at most this many
PAIR_MATRIX_MAX = 1000  # items; past this (and values on both sides) Kendall loops over resamples
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


def _groups(x: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The items in value order, each item's group of equal values, and each group's weight."""
    order = np.argsort(x, kind="stable")
    ordered = x[order]
    new = np.r_[True, ordered[1:] != ordered[:-1]]
    return (
        order,
        np.cumsum(new) - 1,
        np.add.reduceat(weights[:, order], np.flatnonzero(new), axis=1),
    )


def midranks(x: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Each item's rank among the resample's values, ties sharing the mean of their ranks."""
    order, group, counts = _groups(x, weights)
    below = np.cumsum(counts, axis=1) - counts
    ranks = np.empty_like(weights)
    ranks[:, order] = (below + (counts + 1) / 2)[:, group]
    return ranks


def spearman(x: np.ndarray, y: np.ndarray, weights: np.ndarray) -> np.ndarray:
    return pearson(midranks(x, weights), midranks(y, weights), weights)


def _tied_pairs(x: np.ndarray, weights: np.ndarray, total: np.ndarray) -> np.ndarray:
    """Pairs of the resample equal in x (an item's copies among them)."""
    _, _, counts = _groups(x, weights)
    return np.asarray(((counts**2).sum(axis=1) - total) / 2)


def _score_by_groups(x: np.ndarray, y: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Concordant minus discordant pairs, for x with few distinct values (an ordinal label):
    each group of x against the items above it, through prefix sums in y's order."""
    order = np.argsort(y, kind="stable")
    ordered = y[order]
    score = np.zeros(len(weights))
    above = np.zeros(len(x), bool)
    for value in np.unique(x)[::-1]:
        members = x == value
        if above.any():
            below_or_at = np.cumsum(weights[:, order] * above[order], axis=1)
            prefix = np.hstack([np.zeros((len(weights), 1)), below_or_at])
            less = prefix[:, np.searchsorted(ordered, y[members], "left")]
            greater = prefix[:, -1:] - prefix[:, np.searchsorted(ordered, y[members], "right")]
            score += ((greater - less) * weights[:, members]).sum(axis=1)
        above |= members
    return score


def _score(x: np.ndarray, y: np.ndarray, weights: np.ndarray) -> np.ndarray | None:
    """Concordant minus discordant pairs per resample; None where neither way is cheap."""
    if len(np.unique(x)) <= FEW_VALUES:
        return _score_by_groups(x, y, weights)
    if len(np.unique(y)) <= FEW_VALUES:
        return _score_by_groups(y, x, weights)
    if len(x) > PAIR_MATRIX_MAX:
        return None
    signs = np.sign(x[:, None] - x[None, :]) * np.sign(y[:, None] - y[None, :])
    return np.asarray(np.einsum("bi,bi->b", weights @ signs, weights) / 2)


def kendall(x: np.ndarray, y: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """tau-b: (concordant - discordant) / sqrt(pairs untied in x * pairs untied in y)."""
    score = _score(x, y, weights)
    if score is None:
        return _kendall_each(x, y, weights)
    total = weights.sum(axis=1)
    pairs = total * (total - 1) / 2
    denominator = (pairs - _tied_pairs(x, weights, total)) * (
        pairs - _tied_pairs(y, weights, total)
    )
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
