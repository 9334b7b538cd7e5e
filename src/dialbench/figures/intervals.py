"""Every chatbot figure with its 95% interval and its number of seeds.

A figure is the mean of its observations (an issue rate: the share of dialogues flagged). The
dialogues grown from one seed are not independent (they share a first turn, or a ChatSEED), so
the interval counts seeds, not dialogues. A rate (a figure on the scale 0 to 1) gets
Wilson's score interval with the seeds' design effect; any other figure (a 1-5 score) resamples
whole seeds (`resampling.ClusterResamples`) for the expanded percentile interval
(`resampling.expanded_level`), which keeps its coverage with few seeds. Below MIN_CLUSTERS seeds
the row warns. `benchmarks/chatbot_statistics.py check` measures their coverage.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from dialbench.figures.frame import with_all_languages
from dialbench.judge.protocol_figures import is_rate
from dialbench.resampling import (
    LEVEL,
    MIN_CLUSTERS,
    RESAMPLES,
    cluster_mean_interval,
    no_event_high,
)

KEYS = ["protocol", "judge", "dimension", "better", "chatbot", "language"]
COLUMNS = [*KEYS, "units", "items", "value", "low", "high", "note"]
DESIGN = (
    "95% intervals over seeds, the dialogues of one seed (a MEDAL seed context, a BotChat "
    "ChatSEED) taken together: a rate's is Wilson's with the seeds' design effect (0 in every "
    "seed: Clopper–Pearson's upper end over seeds), a score's the expanded percentile "
    "bootstrap (Hesterberg 2015); units = seeds, items = what was judged"
)


def rate_interval(sums: np.ndarray, sizes: np.ndarray) -> tuple[float, float]:
    """Wilson's score interval for a rate from its seeds' sums and sizes: the number of items
    the effective one (Kish: the rate's binomial variance over its variance between seeds),
    the quantile Student's t on the seeds. A rate of a few events is skewed, and the
    bootstrap's percentile interval fell short above it (a 10% rate on 50 seeds held the
    truth 90% of the time); Wilson's leans toward 1/2 as the binomial does."""
    k = len(sums)
    total = float(sizes.sum())
    p = float(sums.sum()) / total
    if p == 0:
        return 0.0, no_event_high(k)
    variance = float(np.sum((sums - p * sizes) ** 2)) / total**2
    if variance == 0:  # every seed at the same rate
        return p, p
    effective = p * (1 - p) / variance
    z2 = float(stats.t.ppf((1 + LEVEL) / 2, k - 1)) ** 2
    center = (p + z2 / (2 * effective)) / (1 + z2 / effective)
    half = np.sqrt(z2 * p * (1 - p) / effective + z2**2 / (4 * effective**2)) / (1 + z2 / effective)
    return max(0.0, center - half), min(1.0, center + half)


def mean_interval(
    values: np.ndarray,
    units: np.ndarray,
    *,
    rate: bool,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> tuple[float, float, float, str]:
    """The mean of `values` (a rate's, or a score's), its interval over the clusters `units`,
    and a note (empty, or why the interval is not to be trusted)."""
    _, cluster = np.unique(np.asarray(units, dtype=str), return_inverse=True)
    k = int(cluster.max()) + 1
    value = float(np.mean(values))
    if k < 2:
        return value, float("nan"), float("nan"), "1 seed: no interval"
    note = f"only {k} seeds: unreliable interval" if k < MIN_CLUSTERS else ""
    if rate:  # Wilson's needs no resamples
        sums = np.bincount(cluster, weights=values, minlength=k)
        return value, *rate_interval(sums, np.bincount(cluster, minlength=k)), note
    return value, *cluster_mean_interval(values, units, resamples, seed), note


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
        first = part.iloc[0]
        value, low, high, note = mean_interval(
            part["value"].to_numpy(dtype=float),
            units,
            rate=is_rate(first["lowest"], first["highest"]),
            resamples=resamples,
            seed=seed,
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
