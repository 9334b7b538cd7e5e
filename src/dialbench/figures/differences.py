"""Differences between two chatbots that hold: compared seed by seed where they share seeds,
with a p-value corrected over the family of comparisons shown.

Chatbots simulated from the same seeds (MEDAL's shared first user turn, BotChat's ChatSEEDs)
are compared on those seeds: each seed's mean for one chatbot minus its mean for the other, a
Student's t interval and test on those per-seed differences (the seeds are the independent
units, so this is the cluster-aware paired analysis; its p-values are exact enough for a Holm
correction over many comparisons, which resampled p-values are not). Chatbots without two shared
seeds fall back to Welch's unpaired test on their per-seed means, and the row says so. Every
difference is `first − second`; `worse_by` reads it in the dimension's bad direction.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats

from dialbench.figures.family import ALPHA, CORRECTIONS, Correction, correct
from dialbench.figures.frame import with_all_languages
from dialbench.figures.power import detectable_effect
from dialbench.resampling import LEVEL, MIN_CLUSTERS

GROUP = ["protocol", "judge", "dimension", "better", "lowest", "highest", "language"]
COLUMNS = [
    *GROUP,
    "first",
    "second",
    "design",
    "units",
    "first_value",
    "second_value",
    "difference",
    "low",
    "high",
    "worse_by",
    "p_value",
    "p_adjusted",
    "holds",
    "detectable",
    "note",
]


def design_note(correction: Correction, alpha: float = ALPHA) -> str:
    return (
        "difference = first − second over the seeds both chatbots ran (paired: Student's t on "
        "the per-seed differences; unpaired where they share fewer than two seeds: Welch's t "
        f"on per-seed means), 95% interval; p-values corrected by {CORRECTIONS[correction]} "
        f"over every row of the table; holds = corrected p < {alpha}; detectable = the "
        "smallest true difference these seeds find 80% of the time at α = 0.05 (before the "
        "correction), from the spread of the per-seed differences"
    )


def _paired(first: pd.Series, second: pd.Series, level: float) -> dict[str, object]:
    shared = first.index.intersection(second.index)
    d = (first[shared] - second[shared]).to_numpy(dtype=float)
    row: dict[str, object] = {
        "design": "paired",
        "units": len(shared),
        "first_value": float(first[shared].mean()),
        "second_value": float(second[shared].mean()),
        "difference": float(d.mean()),
    }
    if np.ptp(d) == 0:  # every seed differs by the same amount: no spread for a t test
        same = float(d[0])
        if same == 0:  # no test could find a difference: left out of the family
            return row | {"low": 0.0, "high": 0.0, "note": "the same on every seed: no test"}
        sign_test = min(1.0, 2 * 0.5 ** len(d))
        return row | {
            "low": same,
            "high": same,
            "p_value": sign_test,
            "note": "every seed differs by the same amount: sign test",
        }
    test = stats.ttest_1samp(d, 0.0)
    interval = test.confidence_interval(level)
    return row | {
        "low": interval.low,
        "high": interval.high,
        "p_value": float(test.pvalue),
        "detectable": detectable_effect(len(d)) * float(np.std(d, ddof=1)),
    }


def _unpaired(first: pd.Series, second: pd.Series, level: float) -> dict[str, object]:
    row: dict[str, object] = {
        "design": "unpaired",
        "units": len(first) + len(second),
        "first_value": float(first.mean()),
        "second_value": float(second.mean()),
        "difference": float(first.mean() - second.mean()),
        "note": "no shared seeds: unpaired (Welch)",
    }
    if np.ptp(first.to_numpy()) == 0 and np.ptp(second.to_numpy()) == 0:
        return row | {"note": "no shared seeds and no spread: no test"}
    with warnings.catch_warnings():  # one side without spread: scipy warns, the test holds
        warnings.simplefilter("ignore", RuntimeWarning)
        test = stats.ttest_ind(first, second, equal_var=False)
    interval = test.confidence_interval(level)
    return row | {"low": interval.low, "high": interval.high, "p_value": float(test.pvalue)}


def compare_pair(first: pd.Series, second: pd.Series, level: float = LEVEL) -> dict[str, object]:
    """Two chatbots' per-seed means (indexed by seed unit): paired on their shared seeds,
    else unpaired; a row without a test (too few seeds) has no p-value."""
    shared = first.index.intersection(second.index)
    if len(shared) >= 2:
        row = _paired(first, second, level)
    elif len(first) >= 2 and len(second) >= 2:
        row = _unpaired(first, second, level)
    else:
        return {
            "design": "none",
            "units": len(shared),
            "first_value": float(first.mean()),
            "second_value": float(second.mean()),
            "difference": float(first.mean() - second.mean()),
            "note": "fewer than two seeds: no test",
        }
    units = len(shared) if row["design"] == "paired" else min(len(first), len(second))
    if units < MIN_CLUSTERS:
        row.setdefault("note", f"only {units} seeds: unreliable")
    return row


def chatbot_differences(
    observations: pd.DataFrame,
    pairs: Sequence[tuple[str, str]] | None = None,
    correction: Correction = "holm",
    alpha: float = ALPHA,
    level: float = LEVEL,
) -> pd.DataFrame:
    """Per protocol, judge, dimension and language (and "all"): each pair of chatbots (every
    pair, or those given as (first, second)), compared on their seeds, corrected as one family.
    """
    if observations.empty:
        return pd.DataFrame(columns=COLUMNS)
    rows = []
    for key, part in with_all_languages(observations).groupby(GROUP, sort=False):
        means = part.groupby(["chatbot", "unit"])["value"].mean()
        present = sorted(set(part["chatbot"]))
        wanted = pairs if pairs is not None else list(combinations(present, 2))
        for first, second in wanted:
            if first not in present or second not in present:
                continue
            row = compare_pair(means[first], means[second], level)
            rows.append(
                {**dict(zip(GROUP, key, strict=True)), "first": first, "second": second, **row}
            )
    return ranked_family(pd.DataFrame(rows, columns=COLUMNS), correction, alpha)


def ranked_family(table: pd.DataFrame, correction: Correction, alpha: float) -> pd.DataFrame:
    """A table of differences as one family: each row's `worse_by` (its difference in the
    dimension's bad direction; a row without a test, the difference of its two values) and its
    p-value corrected with the others'."""
    if table.empty:
        return table
    bad = np.where(table["better"] == "lower", 1.0, -1.0)
    difference = (
        table["difference"]
        .astype(float)
        .fillna(table["first_value"].astype(float) - table["second_value"].astype(float))
    )
    table["worse_by"] = bad * difference
    return correct(table, correction, alpha)[COLUMNS]
