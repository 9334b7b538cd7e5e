"""Scoring a rater against every human annotator and averaging: the MEDAL/Finch et al. protocol.

The human ceiling is the same computation with each annotator in turn as the rater and each other
annotator as the reference.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import numpy as np
import pandas as pd

from dialbench.metaeval.panels import Panel, average, shared
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


def _score(rater: str, pairs: list[tuple[np.ndarray, np.ndarray]], scorer: Scorer) -> Scored:
    usable = [(p, r) for p, r in pairs if len(p)]
    if not usable:
        return Scored(rater=rater, n_items=0, n_references=0, metrics={}, note="no shared items")
    means, undefined = average([scorer(p, r) for p, r in usable])
    return Scored(
        rater=rater,
        n_items=max(len(p) for p, _ in usable),
        n_references=len(usable),
        metrics=means,
        note=f"undefined: {', '.join(undefined)}" if undefined else None,
    )


def against_each_annotator(
    rater: str, predictions: pd.Series, panel: Panel, scorer: Scorer
) -> Scored:
    pairs = [shared(predictions, panel.humans[a]) for a in panel.annotators]
    return _score(rater, pairs, scorer)


def human_ceiling(panel: Panel, scorer: Scorer, max_annotators: int) -> Scored | None:
    """None with fewer than two annotators; a note instead of numbers past `max_annotators`."""
    annotators = panel.annotators
    if len(annotators) < 2:
        return None
    if len(annotators) > max_annotators:
        note = f"{len(annotators)} annotators: human ceiling skipped (pairs grow quadratically)"
        return Scored(rater=HUMAN_CEILING, n_items=0, n_references=0, metrics={}, note=note)
    pairs = [
        shared(panel.humans[a], panel.humans[b]) for a in annotators for b in annotators if a != b
    ]
    return _score(HUMAN_CEILING, pairs, scorer)


class ScoredRow(Record):
    """A table row of one rater's averaged metrics; subclasses add the metrics as fields."""

    dimension: str
    language: str
    rater: str
    n_items: int
    n_references: int
    note: str | None = None


R = TypeVar("R", bound=ScoredRow)


def scored_rows(panel: Panel, row_type: type[R], scorer: Scorer, max_annotators: int) -> list[R]:
    """Every judge against every annotator, then the human ceiling when there is one."""
    scored = [against_each_annotator(str(j), panel.judges[j], panel, scorer) for j in panel.judges]
    ceiling = human_ceiling(panel, scorer, max_annotators)
    return [
        row_type(
            dimension=panel.dimension,
            language=panel.language,
            rater=s.rater,
            n_items=s.n_items,
            n_references=s.n_references,
            note=s.note,
            **s.metrics,
        )
        for s in scored + ([ceiling] if ceiling else [])
    ]
