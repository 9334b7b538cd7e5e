"""Scores against humans: Pearson, Spearman and Kendall's tau with p-values and bootstrap CIs.

A rater's scores are correlated with the mean human score per item. The 95% confidence interval
is a paired percentile bootstrap over items (scipy.stats.bootstrap). The human ceiling is the
mean correlation over annotator pairs, with no p-value or interval of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import combinations

import numpy as np
from scipy.stats import bootstrap, kendalltau, pearsonr, spearmanr

from dialbench.metaeval.panels import Panel, defined, shared
from dialbench.metaeval.references import HUMAN_CEILING
from dialbench.schema import Record

METHODS: dict[str, Callable[..., object]] = {
    "pearson": pearsonr,
    "spearman": spearmanr,
    "kendall": kendalltau,
}
MIN_ITEMS = 3


class CorrelationRow(Record):
    dimension: str
    language: str
    rater: str
    method: str
    n_items: int
    r: float | None
    p_value: float | None
    ci_low: float | None
    ci_high: float | None
    note: str | None = None


def _undefined_because(x: np.ndarray, y: np.ndarray) -> str | None:
    if len(x) < MIN_ITEMS:
        return f"{len(x)} shared item(s): a correlation needs {MIN_ITEMS}"
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return "constant scores: correlation is undefined"
    return None


def correlate(
    method: str, x: np.ndarray, y: np.ndarray, resamples: int, seed: int
) -> tuple[float | None, float | None, float | None, float | None, str | None]:
    """(r, p-value, CI low, CI high, note); every undefined figure is None with the reason."""
    reason = _undefined_because(x, y)
    if reason:
        return None, None, None, None, reason
    function = METHODS[method]
    result = function(x, y)
    r, p = defined(result[0]), defined(result[1])  # type: ignore[index]
    interval = bootstrap(
        (x, y),
        lambda a, b: function(a, b)[0],  # type: ignore[index]
        paired=True,
        vectorized=False,
        n_resamples=resamples,
        method="percentile",
        rng=np.random.default_rng(seed),
    ).confidence_interval
    low, high = defined(interval.low), defined(interval.high)
    note = (
        None if low is not None else "bootstrap interval undefined (resamples with constant scores)"
    )
    return r, p, low, high, note


def _judge_rows(panel: Panel, resamples: int, seed: int) -> Iterator[CorrelationRow]:
    human_mean = panel.humans.mean(axis=1)
    for judge in panel.judges:
        x, y = shared(panel.judges[judge], human_mean)
        for method in METHODS:
            r, p, low, high, note = correlate(method, x, y, resamples, seed)
            yield CorrelationRow(
                dimension=panel.dimension,
                language=panel.language,
                rater=str(judge),
                method=method,
                n_items=len(x),
                r=r,
                p_value=p,
                ci_low=low,
                ci_high=high,
                note=note,
            )


def _ceiling_rows(panel: Panel) -> Iterator[CorrelationRow]:
    for method, function in METHODS.items():
        values, n_items = [], 0
        for a, b in combinations(panel.annotators, 2):
            x, y = shared(panel.humans[a], panel.humans[b])
            if _undefined_because(x, y) is None:
                values.append(float(function(x, y)[0]))  # type: ignore[index]
                n_items = max(n_items, len(x))
        yield CorrelationRow(
            dimension=panel.dimension,
            language=panel.language,
            rater=HUMAN_CEILING,
            method=method,
            n_items=n_items,
            r=float(np.mean(values)) if values else None,
            p_value=None,
            ci_low=None,
            ci_high=None,
            note=f"mean over {len(values)} annotator pair(s)"
            if values
            else "no annotator pair with a defined correlation",
        )


def correlations(
    panel: Panel, resamples: int, seed: int, max_annotators: int
) -> list[CorrelationRow]:
    """Each judge against the mean human score; then the human ceiling where it is affordable."""
    rows = list(_judge_rows(panel, resamples, seed))
    if 2 <= len(panel.annotators) <= max_annotators:
        rows += _ceiling_rows(panel)
    return rows
