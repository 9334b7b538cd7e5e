"""Scoring a rater against every human annotator and averaging: the MEDAL/Finch et al. protocol.

The human ceiling is the same computation with each annotator in turn as the rater and each other
annotator as the reference, on the items the judges rated (`ceiling_matrices`), so a judge and the
ceiling beside it rest on the same items. `n_items` counts the items a figure rests on: those the
rater rated that a human rated too (for the ceiling: that two humans rated); in the `all` matrix
that is every language's items pooled.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import numpy as np
import pandas as pd

from dialbench.metaeval.rating_matrix import RatingMatrix, average, shared
from dialbench.schema import Record

Scorer = Callable[[np.ndarray, np.ndarray], dict[str, float]]
HUMAN_CEILING = "human (ceiling)"


class Scored(Record):
    """A rater's metrics averaged over references, with how much data they rest on."""

    rater: str
    n_items: int
    n_references: int
    metrics: dict[str, float | None]
    note: str | None = None


def ceiling_name(judges: list[str], groups: int) -> str:
    """The ceiling's rater name: plain when every judge rated the same items, else whose items."""
    if groups <= 1:
        return HUMAN_CEILING
    return f"{HUMAN_CEILING} on the items of {', '.join(judges)}"


def is_ceiling(rater: str) -> bool:
    return rater.startswith(HUMAN_CEILING)


def ceiling_matrices(matrix: RatingMatrix) -> list[tuple[str, RatingMatrix]]:
    """The matrices a human ceiling is computed on: the items the judges rated (judges that rated
    the same items share one ceiling), or every item when no judge rated any."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for judge in matrix.judges:
        items = tuple(matrix.judged(judge))
        if items:
            groups.setdefault(items, []).append(str(judge))
    if not groups:
        return [(HUMAN_CEILING, matrix)]
    return [
        (ceiling_name(judges, len(groups)), matrix.on(pd.Index(items)))
        for items, judges in groups.items()
    ]


def _score(
    rater: str, pairs: list[tuple[np.ndarray, np.ndarray]], scorer: Scorer, n_items: int
) -> Scored:
    usable = [(p, r) for p, r in pairs if len(p)]
    if not usable:
        return Scored(rater=rater, n_items=0, n_references=0, metrics={}, note="no shared items")
    means, undefined = average([scorer(p, r) for p, r in usable])
    return Scored(
        rater=rater,
        n_items=n_items,
        n_references=len(usable),
        metrics=means,
        note=f"undefined: {', '.join(undefined)}" if undefined else None,
    )


def against_each_annotator(
    rater: str, predictions: pd.Series, matrix: RatingMatrix, scorer: Scorer
) -> Scored:
    pairs = [shared(predictions, matrix.humans[a]) for a in matrix.annotators]
    n_items = int((predictions.notna() & matrix.humans.notna().any(axis=1)).sum())
    return _score(rater, pairs, scorer, n_items)


def paired_items(matrix: RatingMatrix) -> int:
    """How many items two annotators rated: what a ceiling rests on."""
    return int((matrix.humans.notna().sum(axis=1) >= 2).sum())


def human_ceiling(
    name: str, matrix: RatingMatrix, scorer: Scorer, max_annotators: int
) -> Scored | None:
    """None with fewer than two annotators; a note instead of numbers past `max_annotators`."""
    annotators = matrix.annotators
    if len(annotators) < 2:
        return None
    if len(annotators) > max_annotators:
        note = f"{len(annotators)} annotators: human ceiling skipped (pairs grow quadratically)"
        return Scored(rater=name, n_items=0, n_references=0, metrics={}, note=note)
    pairs = [
        shared(matrix.humans[a], matrix.humans[b]) for a in annotators for b in annotators if a != b
    ]
    return _score(name, pairs, scorer, paired_items(matrix))


class ScoredRow(Record):
    """A table row of one rater's averaged metrics; subclasses add the metrics as fields."""

    dimension: str
    language: str
    rater: str
    n_items: int
    n_references: int
    note: str | None = None


R = TypeVar("R", bound=ScoredRow)


def scored_rows(
    matrix: RatingMatrix, row_type: type[R], scorer: Scorer, max_annotators: int
) -> list[R]:
    """Every judge against every annotator, then the human ceiling when there is one."""
    scored = [
        against_each_annotator(str(j), matrix.judges[j], matrix, scorer) for j in matrix.judges
    ]
    ceilings = [
        human_ceiling(name, part, scorer, max_annotators) for name, part in ceiling_matrices(matrix)
    ]
    return [
        row_type(
            dimension=matrix.dimension,
            language=matrix.language,
            rater=s.rater,
            n_items=s.n_items,
            n_references=s.n_references,
            note=s.note,
            **s.metrics,
        )
        for s in scored + [c for c in ceilings if c]
    ]
