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
    "dialogues of one seed (a MEDAL seed context, a BotChat ChatSEED) drawn together; "
    "units = seeds, items = what was judged"
)


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
    sums = np.bincount(drawn.cluster, weights=values, minlength=k)
    sizes = np.bincount(drawn.cluster, minlength=k)
    resampled = (drawn.counts @ sums) / (drawn.counts @ sizes)
    low, high = percentile_interval(resampled, expanded_level(LEVEL, k))
    note = f"only {k} seeds: unreliable interval" if k < MIN_CLUSTERS else ""
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
