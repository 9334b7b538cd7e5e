"""Chatbot figures corrected by human labels: prediction-powered inference (PPI++, Angelopoulos,
Duchi and Zrnic 2023) made design-based and clustered by seed.

A judged figure is the mean of the judge's values f over every judged item of a cell (chatbot ×
language × dimension); a few of those items, drawn by a probability sample, also carry a human
label y and a weight w = 1/π (`labelled_observations.py`). The corrected figure is

    θ = λ·F + R,   F = mean of f over the cell's N items,
                   R = Σ w (y − λ f) / Σ w over the labelled items (Hajek's weighted mean),

the judge's figure plus the labelled items' weighted estimate of how far the humans are from
it. λ = 0 is the labels alone (`labels_only`); λ = 1 trusts the judge wherever it agrees with
them. λ is PPI++'s power-tuned weight for a mean, Cov(y, f) / ((1 + n/N) Var(f)), clipped to
[0, 1] as ppi_py clips it: the more the judge's values track the humans', the more of the
judge's figure (known on every item) the estimate keeps, and an uninformative judge is weighted
down to the labels alone.

Its interval counts seeds, as every chatbot figure's does. The labels-only figure and the bias
are smooth functions of totals over items, so their linearization gives each item an influence
(w (r − R)/Σw for a labelled item's residual r), a seed's influence is the sum over its items,
and the variance is K/(K − 1) Σ of the seeds' squared influences (the ultimate-cluster
estimator, seeds taken as drawn with replacement: conservative for a stratified sample). The
corrected figure's seeds are weighed by the delete-one-seed jackknife instead, λ tuned again
without each seed: λ tuned on the same few labels the interval is computed from has an error of
its own, which linearization leaves out (on 30 labels per cell its intervals covered 92.5%, the
jackknife's 93.1%). Where that variance is no smaller than the labels' alone, the judge adds only
noise and the figure is the labels' alone (λ = 0), so a useless judge never widens an interval.
The quantile is Student's t with one fewer degree of freedom than the labelled seeds. The seeds'
influences, differenced seed by seed, give the paired difference of two chatbots on their shared
seeds, and of a language against a chatbot's others. `benchmarks/corrected_figures.py` measures
the coverage on simulated runs with a known truth.

The judge's bias on the labelled items is Σ w (f − y) / Σ w, with its interval the same way. A
cell with fewer than MIN_LABELS labelled items, or labels on fewer than two seeds, has no
corrected figure, and its note says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

import numpy as np
import pandas as pd
from scipy import stats

from dialbench.figures.differences import COLUMNS as DIFFERENCE_COLUMNS
from dialbench.figures.differences import GROUP, ranked_family
from dialbench.figures.family import ALPHA, Correction, correct
from dialbench.figures.frame import with_all_languages
from dialbench.figures.intervals import KEYS
from dialbench.judge.protocol_figures import is_rate
from dialbench.resampling import LEVEL

MIN_LABELS = 10
CORRECTED_COLUMNS = [
    *KEYS,
    "labelled",
    "labelled_units",
    "corrected",
    "corrected_low",
    "corrected_high",
    "judge_weight",
    "bias",
    "bias_low",
    "bias_high",
    "labels_only",
    "labels_only_low",
    "labels_only_high",
    "note",
]
LANGUAGE_COLUMNS = [
    "protocol",
    "judge",
    "dimension",
    "better",
    "chatbot",
    "language",
    "basis",
    "units",
    "value",
    "others_value",
    "difference",
    "low",
    "high",
    "p_value",
    "p_adjusted",
    "holds",
    "note",
]
Mode = Literal["corrected", "labels", "judge", "bias"]


@dataclass(frozen=True)
class Estimate:
    """A cell's estimate, each seed's influence on it, and what it was made from."""

    value: float
    influence: pd.Series  # by seed unit
    labelled: int
    labelled_units: frozenset[str]  # every seed for the judge alone
    weight_on_judge: float

    @property
    def df(self) -> int:
        return max(len(self.labelled_units) - 1, 1)


def labelled_mask(cell: pd.DataFrame) -> np.ndarray:
    """The items with a human label and a sampling weight."""
    return np.asarray(cell["human"].notna() & cell["weight"].notna(), dtype=bool)


def too_few(cell: pd.DataFrame) -> str:
    """Why a cell's labels are too few to correct it, or empty."""
    labelled = labelled_mask(cell)
    n = int(labelled.sum())
    if n < MIN_LABELS:
        return f"{n} labelled items: too few to correct ({MIN_LABELS} needed)"
    if cell.loc[labelled, "unit"].nunique() < 2:
        return "labels on one seed: too few to correct"
    return ""


def power_tuned_weight(f: np.ndarray, y: np.ndarray, w: np.ndarray, f_all: np.ndarray) -> float:
    """PPI++'s λ for a mean: the labels' weighted covariance of y and f over (1 + n/N) times
    the variance of f over every item, clipped to [0, 1]."""
    variance = float(np.var(f_all))
    if variance == 0:
        return 0.0
    share = w / w.sum()
    covariance = float(np.sum(share * (y - share @ y) * (f - share @ f)))
    return float(np.clip(covariance / ((1 + len(f) / len(f_all)) * variance), 0.0, 1.0))


def estimate(cell: pd.DataFrame, mode: Mode) -> Estimate:
    """The cell's figure: corrected (PPI++), the labels alone, the judge alone (the raw
    figure), or the judge's bias on the labelled items; with each seed's influence."""
    f_all = cell["value"].to_numpy(dtype=float)
    units = cell["unit"].astype(str).to_numpy()
    labelled = labelled_mask(cell)
    f, y = f_all[labelled], cell["human"].to_numpy(dtype=float)[labelled]
    w = cell["weight"].to_numpy(dtype=float)[labelled]
    labelled_units = frozenset(units[labelled])
    influence = np.zeros(len(cell))
    if mode == "judge":
        mean = float(f_all.mean())
        influence = (f_all - mean) / len(f_all)
        return Estimate(mean, _by_unit(influence, units), 0, frozenset(units), 1.0)
    if mode == "bias":
        residual = f - y
        lam = 0.0
    else:
        lam = power_tuned_weight(f, y, w, f_all) if mode == "corrected" else 0.0
        residual = y - lam * f
    rectifier = float(w @ residual / w.sum())
    influence[labelled] = w * (residual - rectifier) / w.sum()
    value = rectifier
    by_unit = _by_unit(influence, units)
    if mode == "corrected":
        value += lam * float(f_all.mean())
        by_unit = _jackknifed(
            f_all,
            cell["human"].to_numpy(dtype=float),
            cell["weight"].to_numpy(dtype=float),
            labelled,
            units,
        )
        alone = estimate(cell, "labels")
        if _variance(alone.influence) <= _variance(by_unit):  # the judge adds only noise
            return alone
    return Estimate(value, by_unit, int(labelled.sum()), labelled_units, lam)


def _jackknifed(
    f: np.ndarray, y: np.ndarray, w: np.ndarray, labelled: np.ndarray, units: np.ndarray
) -> pd.Series:
    """Each seed's influence on the corrected figure, λ tuned again without the seed
    (the delete-one-seed jackknife, scaled so `_variance` gives its variance): the error of a
    λ tuned on the same few labels widens the interval, as it widens the estimate's spread."""
    y, w = np.where(labelled, y, 0.0), np.where(labelled, w, 0.0)
    columns = np.stack(
        [np.ones_like(f), f, f * f, labelled.astype(float), w, w * y, w * f, w * y * f], axis=1
    )
    totals = pd.DataFrame(columns).groupby(units).sum()
    left = totals.to_numpy().sum(axis=0) - totals.to_numpy()  # each seed left out
    n_all, f_sum, ff_sum, n, weight, wy, wf, wyf = left.T
    with np.errstate(divide="ignore", invalid="ignore"):
        judge_mean = f_sum / n_all
        variance = ff_sum / n_all - judge_mean**2
        covariance = wyf / weight - (wy / weight) * (wf / weight)
        lam = np.clip(
            np.where(variance > 0, covariance / ((1 + n / n_all) * variance), 0.0), 0.0, 1.0
        )
        replicates = lam * judge_mean + (wy - lam * wf) / weight
    k = len(replicates)
    scaled = (replicates - np.nanmean(replicates)) * (k - 1) / k
    return pd.Series(np.nan_to_num(scaled), index=totals.index)


def _by_unit(influence: np.ndarray, units: np.ndarray) -> pd.Series:
    return pd.Series(influence).groupby(units).sum()


def _variance(influence: pd.Series) -> float:
    k = len(influence)
    return float(k / (k - 1) * np.sum(influence.to_numpy() ** 2)) if k > 1 else float("nan")


def interval(found: Estimate, level: float = LEVEL) -> tuple[float, float]:
    half = float(stats.t.ppf((1 + level) / 2, found.df)) * np.sqrt(_variance(found.influence))
    return found.value - half, found.value + half


def _clipped(ends: tuple[float, float], rate: bool) -> tuple[float, float]:
    return (max(0.0, ends[0]), min(1.0, ends[1])) if rate else ends


def corrected_intervals(labelled: pd.DataFrame, level: float = LEVEL) -> pd.DataFrame:
    """Per protocol, judge, dimension, chatbot and language (and "all"): the corrected figure,
    the labels-only one and the judge's bias, each with its 95% interval over seeds, and λ."""
    if labelled.empty:
        return pd.DataFrame(columns=CORRECTED_COLUMNS)
    rows = []
    for key, cell in with_all_languages(labelled).groupby(KEYS, sort=False):
        row: dict[str, object] = dict(zip(KEYS, key, strict=True))
        mask = labelled_mask(cell)
        row |= {"labelled": int(mask.sum()), "labelled_units": cell.loc[mask, "unit"].nunique()}
        why = too_few(cell)
        if why:
            rows.append(row | {"note": why})
            continue
        rate = is_rate(float(cell["lowest"].iloc[0]), float(cell["highest"].iloc[0]))
        modes: tuple[tuple[str, Mode], ...] = (
            ("corrected", "corrected"),
            ("labels_only", "labels"),
        )
        for prefix, mode in modes:
            found = estimate(cell, mode)
            low, high = _clipped(interval(found, level), rate)
            row |= {prefix: found.value, f"{prefix}_low": low, f"{prefix}_high": high}
            if mode == "corrected":
                row["judge_weight"] = found.weight_on_judge
        bias = estimate(cell, "bias")
        low, high = interval(bias, level)
        rows.append(row | {"bias": bias.value, "bias_low": low, "bias_high": high, "note": ""})
    return pd.DataFrame(rows, columns=CORRECTED_COLUMNS)


def difference_of(
    first: Estimate, second: Estimate, level: float = LEVEL
) -> dict[str, float | int]:
    """first − second, paired seed by seed through their influences (a seed only one of them
    has adds its own), with its interval and Student's t p-value."""
    influence = first.influence.sub(second.influence, fill_value=0.0)
    difference = first.value - second.value
    df = max(len(first.labelled_units | second.labelled_units) - 1, 1)
    se = np.sqrt(_variance(influence))
    quantile = float(stats.t.ppf((1 + level) / 2, df))
    p = float(2 * stats.t.sf(abs(difference) / se, df)) if se > 0 else float("nan")
    return {
        "units": len(influence),
        "difference": difference,
        "low": difference - quantile * se,
        "high": difference + quantile * se,
        "p_value": p,
    }


def corrected_differences(
    labelled: pd.DataFrame,
    pairs: Sequence[tuple[str, str]] | None = None,
    correction: Correction = "holm",
    alpha: float = ALPHA,
    level: float = LEVEL,
) -> pd.DataFrame:
    """`chatbot_differences` on corrected figures: per protocol, judge, dimension and language
    (and "all"), each pair of chatbots (every pair, or those given), first − second on the
    seeds they share, one family; a pair whose cells have too few labels has no test."""
    if labelled.empty:
        return pd.DataFrame(columns=DIFFERENCE_COLUMNS)
    rows = []
    for key, part in with_all_languages(labelled).groupby(GROUP, sort=False):
        cells = {str(chatbot): cell for chatbot, cell in part.groupby("chatbot")}
        wanted = pairs if pairs is not None else list(combinations(sorted(cells), 2))
        for first, second in wanted:
            if first not in cells or second not in cells:
                continue
            row: dict[str, object] = {
                **dict(zip(GROUP, key, strict=True)),
                "first": first,
                "second": second,
                "design": "corrected",
            }
            why = "; ".join(
                f"{name}: {w}" for name in (first, second) if (w := too_few(cells[name]))
            )
            if why:
                raw = [estimate(cells[name], "judge").value for name in (first, second)]
                rows.append(row | {"first_value": raw[0], "second_value": raw[1], "note": why})
                continue
            a, b = estimate(cells[first], "corrected"), estimate(cells[second], "corrected")
            rows.append(
                row
                | {"first_value": a.value, "second_value": b.value, "note": ""}
                | difference_of(a, b, level)
            )
    return ranked_family(pd.DataFrame(rows, columns=DIFFERENCE_COLUMNS), correction, alpha)


def language_differences(
    labelled: pd.DataFrame,
    corrected: bool,
    correction: Correction = "holm",
    alpha: float = ALPHA,
    level: float = LEVEL,
) -> pd.DataFrame:
    """Per protocol, judge, dimension and chatbot: each language's figure minus the chatbot's
    other languages pooled, on the judge's labels (`corrected=False`) or corrected, one family;
    a finding that holds one way and not the other is the judge's language bias, or hid by it."""
    keys = ["protocol", "judge", "dimension", "better", "chatbot"]
    mode: Mode = "corrected" if corrected else "judge"
    rows = []
    for key, part in labelled.groupby(keys, sort=False):
        languages = sorted(set(part["language"]))
        if len(languages) < 2:
            continue
        for language in languages:
            own, others = part[part["language"] == language], part[part["language"] != language]
            row: dict[str, object] = {
                **dict(zip(keys, key, strict=True)),
                "language": language,
                "basis": mode,
            }
            why = "; ".join(w for w in (too_few(own), too_few(others)) if corrected and w)
            if why:
                rows.append(row | {"note": why})
                continue
            a, b = estimate(own, mode), estimate(others, mode)
            found = difference_of(a, b, level)
            rows.append(row | {"value": a.value, "others_value": b.value, "note": ""} | found)
    table = pd.DataFrame(rows, columns=LANGUAGE_COLUMNS)
    if table.empty:
        return table
    return correct(table, correction, alpha)[LANGUAGE_COLUMNS]
