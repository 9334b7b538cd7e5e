"""Scores against humans: Pearson, Spearman and Kendall's tau, each with a 95% interval, and the
judges' with a p-value, from one bootstrap over dialogues (`clusters`).

A judge's scores are correlated with the mean human score per item. The human ceiling is the same
comparison for a person, on the same items: each annotator's scores against the mean of the other
annotators on the items they rated (leave one out), averaged over the annotators with a defined
correlation (in each resample, those with one there); its interval resamples the same dialogues
as the judge's. It grows linearly with the
annotators, so a crowd of hundreds gets one too.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pandas as pd

from dialbench.metaeval.inference import Inference, infer, observed_and_resampled
from dialbench.metaeval.rating_matrix import RatingMatrix
from dialbench.metaeval.references import ceiling_matrices, paired_items
from dialbench.metaeval.weighted import METHODS, MIN_ITEMS
from dialbench.resampling import ClusterResamples
from dialbench.schema import Record


class CorrelationRow(Record):
    dimension: str
    language: str
    rater: str
    method: str
    n_items: int
    n_dialogues: int
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


def _row(
    matrix: RatingMatrix, rater: str, method: str, n_items: int, n_dialogues: int, found: Inference
) -> CorrelationRow:
    return CorrelationRow(
        dimension=matrix.dimension,
        language=matrix.language,
        rater=rater,
        method=method,
        n_items=n_items,
        n_dialogues=n_dialogues,
        r=found.value,
        p_value=found.p_value,
        ci_low=found.low,
        ci_high=found.high,
        note=found.note,
    )


def _judge_rows(matrix: RatingMatrix, resamples: int, seed: int) -> Iterator[CorrelationRow]:
    human_mean = matrix.humans.mean(axis=1)
    for judge in matrix.judges:
        items = matrix.judged(judge)
        x, y = matrix.judges[judge][items].to_numpy(float), human_mean[items].to_numpy(float)
        drawn = ClusterResamples.draw(matrix.clusters[items], resamples, seed)
        weights = observed_and_resampled(drawn)
        reason = _undefined_because(x, y)
        for method, function in METHODS.items():
            found = (
                Inference(None, None, None, None, reason)
                if reason
                else infer(function(x, y, weights), drawn.n_clusters)
            )
            yield _row(matrix, str(judge), method, len(items), drawn.n_clusters, found)


def _others_mean(matrix: RatingMatrix) -> Iterator[tuple[pd.Series, pd.Series]]:
    """Each annotator's scores beside the mean of the other annotators' on the same items."""
    total, count = matrix.humans.sum(axis=1), matrix.humans.count(axis=1)
    for annotator in matrix.annotators:
        own = matrix.humans[annotator]
        others = count - own.notna()
        yield own, (total - own.fillna(0)).where(others > 0) / others


def _ceiling_rows(
    name: str, matrix: RatingMatrix, resamples: int, seed: int
) -> Iterator[CorrelationRow]:
    drawn = ClusterResamples.draw(matrix.clusters, resamples, seed)
    weights = observed_and_resampled(drawn)
    usable = []
    for own, others in _others_mean(matrix):
        both = (own.notna() & others.notna()).to_numpy()
        x, y = own.to_numpy(float)[both], others.to_numpy(float)[both]
        if _undefined_because(x, y) is None:
            usable.append((x, y, weights[:, both]))
    for method, function in METHODS.items():
        if usable:
            each = np.column_stack([function(x, y, w) for x, y, w in usable])
            defined = np.isfinite(each).any(axis=1)
            means = np.full(len(each), np.nan)
            means[defined] = np.nanmean(each[defined], axis=1)
            found = infer(means, drawn.n_clusters, test_zero=False)
            note = f"mean over {len(usable)} annotator(s), each against the mean of the others"
        else:
            found = Inference(None, None, None, None, None)
            note = "no annotator with a defined correlation against the others"
        found = Inference(
            found.value, found.low, found.high, None, "; ".join(filter(None, [note, found.note]))
        )
        yield _row(matrix, name, method, paired_items(matrix), drawn.n_clusters, found)


def correlations(matrix: RatingMatrix, resamples: int, seed: int) -> list[CorrelationRow]:
    """Each judge against the mean human score; then the human ceiling on the judges' items,
    given two annotators."""
    rows = list(_judge_rows(matrix, resamples, seed))
    if len(matrix.annotators) >= 2:
        for name, part in ceiling_matrices(matrix):
            rows += _ceiling_rows(name, part, resamples, seed)
    return rows
