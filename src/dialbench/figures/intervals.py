"""Every chatbot figure with its 95% interval and its number of seeds.

A figure is the mean of its observations (an issue rate: the share of dialogues flagged). The
dialogues grown from one seed are not independent (they share a first turn, or a ChatSEED), so
the interval resamples whole seeds (`resampling.ClusterResamples`), and is the expanded
percentile interval (`resampling.expanded_level`), which keeps its coverage with few seeds.
Below MIN_CLUSTERS seeds the row warns.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dialbench.figures.frame import with_all_languages
from dialbench.resampling import (
    LEVEL,
    MIN_CLUSTERS,
    ClusterResamples,
    expanded_level,
    percentile_interval,
)

RESAMPLES = 2000
KEYS = ["protocol", "judge", "dimension", "better", "chatbot", "language"]
COLUMNS = [*KEYS, "units", "items", "value", "low", "high", "note"]
DESIGN = (
    "95% intervals: expanded percentile bootstrap (Hesterberg 2015) over seeds, the "
    "dialogues of one seed (a MEDAL seed context, a BotChat ChatSEED) drawn together (a "
    "figure 0 in every seed: Clopper–Pearson's upper end over seeds); units = seeds, "
    "items = what was judged"
)


def no_event_high(n_clusters: int) -> float:
    """The upper end for a figure that is 0 in every seed (an issue never flagged): no
    resample differs, so the bootstrap's interval would be the point 0 and miss every small
    true rate. Clopper–Pearson's for no event in `n_clusters` trials, a seed one trial:
    conservative for a rate, as a seed's chance of any event is at least its rate. (A figure
    that is 1 everywhere keeps its point: 1 is also the floor of a 1-5 score.)"""
    return float(1 - ((1 - LEVEL) / 2) ** (1 / n_clusters))


def mean_interval(
    values: np.ndarray, units: np.ndarray, resamples: int = RESAMPLES, seed: int = 0
) -> tuple[float, float, float, str]:
    """The mean of `values`, its interval over the clusters `units`, and a note (empty, or
    why the interval is not to be trusted)."""
    drawn = ClusterResamples.draw(units, resamples, seed)
    k = drawn.n_clusters
    value = float(np.mean(values))
    if k < 2:
        return value, float("nan"), float("nan"), "1 seed: no interval"
    note = f"only {k} seeds: unreliable interval" if k < MIN_CLUSTERS else ""
    if not values.any():
        return value, 0.0, no_event_high(k), note
    sums = np.bincount(drawn.cluster, weights=values, minlength=k)
    sizes = np.bincount(drawn.cluster, minlength=k)
    resampled = (drawn.counts @ sums) / (drawn.counts @ sizes)
    low, high = percentile_interval(resampled, expanded_level(LEVEL, k))
    return value, float(low), float(high), note


def chatbot_intervals(
    observations: pd.DataFrame, resamples: int = RESAMPLES, seed: int = 0
) -> pd.DataFrame:
    """Per protocol, judge, dimension, chatbot and language (and "all"): seeds, items, the
    figure, its interval and a note."""
    if observations.empty:
        return pd.DataFrame(columns=COLUMNS)
    rows = []
    for key, part in with_all_languages(observations).groupby(KEYS, sort=False):
        units = part["unit"].to_numpy(dtype=str)
        value, low, high, note = mean_interval(
            part["value"].to_numpy(dtype=float), units, resamples, seed
        )
        rows.append(
            {
                **dict(zip(KEYS, key, strict=True)),
                "units": len(set(units)),
                "items": len(part),
                "value": value,
                "low": low,
                "high": high,
                "note": note,
            }
        )
    return pd.DataFrame(rows, columns=COLUMNS)
