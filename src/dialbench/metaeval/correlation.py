"""Scores against humans: Pearson, Spearman and Kendall's tau with p-values and bootstrap CIs.

A rater's scores are correlated with the mean human score per item. The 95% confidence interval
is a paired percentile bootstrap over items (scipy.stats.bootstrap). The human ceiling is the same
comparison for a person: each annotator's scores against the mean of the other annotators on the
items they rated (leave one out), averaged over annotators, with no p-value or interval of its
own. It grows linearly with the annotators, so a crowd of hundreds gets one too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
import pandas as pd
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


def _others_mean(panel: Panel) -> Iterator[tuple[pd.Series, pd.Series]]:
    """Each annotator's scores beside the mean of the other annotators' on the same items."""
    total, count = panel.humans.sum(axis=1), panel.humans.count(axis=1)
    for annotator in panel.annotators:
        own = panel.humans[annotator]
        others = count - own.notna()
        yield own, (total - own.fillna(0)).where(others > 0) / others


def _ceiling_rows(panel: Panel) -> Iterator[CorrelationRow]:
    pairs = [shared(own, others) for own, others in _others_mean(panel)]
    usable = [(x, y) for x, y in pairs if _undefined_because(x, y) is None]
    for method, function in METHODS.items():
        values = [float(function(x, y)[0]) for x, y in usable]  # type: ignore[index]
        yield CorrelationRow(
            dimension=panel.dimension,
            language=panel.language,
            rater=HUMAN_CEILING,
            method=method,
            n_items=max((len(x) for x, _ in usable), default=0),
            r=defined(float(np.mean(values))) if values else None,
            p_value=None,
            ci_low=None,
            ci_high=None,
            note=f"mean over {len(values)} annotator(s), each against the mean of the others"
            if values
            else "no annotator with a defined correlation against the others",
        )


def correlations(panel: Panel, resamples: int, seed: int) -> list[CorrelationRow]:
    """Each judge against the mean human score; then the human ceiling, given two annotators."""
    rows = list(_judge_rows(panel, resamples, seed))
    if len(panel.annotators) >= 2:
        rows += _ceiling_rows(panel)
    return rows
