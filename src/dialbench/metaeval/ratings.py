"""Ratings in long form, one row per (item, rater, dimension): the input of every statistic.

Store annotations and judgments (placed by `rated_items`, as the report places them), and files
from elsewhere, all become these rows, so the same statistics serve dialbench's own runs and
published annotation sets.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import pandas as pd

from dialbench.errors import DialbenchError
from dialbench.rated_items import UNKNOWN_LANGUAGE, flatten, placed_annotations, placed_judgments
from dialbench.schema import Judgment, Record
from dialbench.store import RunStore

RaterKind = Literal["human", "judge"]
UNSCORED = "*"
COLUMNS = ["item_id", "rater", "kind", "dimension", "value", "language"]


class Rating(Record):
    """One rater's value for one item on one dimension; None = the judge gave no usable value."""

    item_id: str
    rater: str
    kind: RaterKind
    dimension: str
    value: float | str | None
    language: str = UNKNOWN_LANGUAGE


def human_ratings(store: RunStore) -> list[Rating]:
    """The store's annotations, one rating per annotator, item and dimension."""
    return [
        Rating(
            item_id=p.item, rater=p.rater, kind="human", dimension=d, value=v, language=p.language
        )
        for annotation, p in placed_annotations(store)
        for d, v in flatten(annotation.labels)
    ]


def from_store(store: RunStore, protocol: str | None = None) -> tuple[list[Rating], list[Judgment]]:
    """Human ratings from annotations and judge ratings from judgments (of one protocol); a
    judge that judged under several configurations is one rater per configuration."""
    ratings = human_ratings(store)
    placed = placed_judgments(store, protocol)
    protocols = {j.protocol for j, _ in placed}
    if len(protocols) > 1:
        raise DialbenchError(
            f"the run holds judgments of several protocols ({', '.join(sorted(protocols))}); "
            "choose one with --protocol"
        )
    for judgment, p in placed:
        values = flatten(judgment.result) if judgment.result else [(UNSCORED, None)]
        ratings += [
            Rating(
                item_id=p.item,
                rater=p.rater,
                kind="judge",
                dimension=d,
                value=v,
                language=p.language,
            )
            for d, v in values
        ]
    return ratings, [j for j, _ in placed]


def to_frame(ratings: Sequence[Rating], default_language: str | None = None) -> pd.DataFrame:
    """The ratings as a table, each item in one language: the one its ratings name (a judge's
    file often names none), else `default_language`."""
    frame = pd.DataFrame([r.model_dump() for r in ratings], columns=COLUMNS)
    named = frame[frame["language"] != UNKNOWN_LANGUAGE].drop_duplicates("item_id")
    language = frame["item_id"].map(named.set_index("item_id")["language"])
    frame["language"] = language.astype(object).fillna(default_language or UNKNOWN_LANGUAGE)
    return frame
