"""Ratings in long form, one row per (item, rater, dimension): the input of every statistic.

Store annotations and judgments, and files from elsewhere, all become these rows, so the same
statistics serve dialbench's own runs and published annotation sets.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Literal

import pandas as pd
from pydantic import JsonValue

from dialbench.errors import DialbenchError
from dialbench.schema import Annotation, Judgment, Record, Target
from dialbench.store import RunStore

RaterKind = Literal["human", "judge"]
UNKNOWN_LANGUAGE = "und"
UNSCORED = "*"
TEXT_KEYS = frozenset({"comment", "comments", "reason", "rationale", "explanation", "feedback"})
COLUMNS = ["item_id", "rater", "kind", "dimension", "value", "language"]


class Rating(Record):
    """One rater's value for one item on one dimension; None = the judge gave no usable value."""

    item_id: str
    rater: str
    kind: RaterKind
    dimension: str
    value: float | str | None
    language: str = UNKNOWN_LANGUAGE


def item_key(target: Target) -> str:
    if target.other_dialogue_id is not None:
        return f"{target.dialogue_id}|{target.other_dialogue_id}"
    if target.turn_index is not None:
        return f"{target.dialogue_id}#{target.turn_index}"
    return target.dialogue_id


def scalar(value: JsonValue) -> float | str | None:
    """Booleans and numbers as floats (True = 1.0), strings as they are; anything else: None."""
    if isinstance(value, bool | int | float):
        return float(value)
    if isinstance(value, str):
        return value
    return None


def flatten(labels: Mapping[str, JsonValue], prefix: str = "") -> Iterator[tuple[str, float | str]]:
    """Nested label dicts as dotted dimensions: {"issues": {"empathy": true}} -> issues.empathy.

    Free-text explanations (keys in TEXT_KEYS, at any depth) are not dimensions and are skipped.
    """
    for key, value in labels.items():
        if key in TEXT_KEYS:
            continue
        if isinstance(value, dict):
            yield from flatten(value, f"{prefix}{key}.")
        elif (converted := scalar(value)) is not None:
            yield f"{prefix}{key}", converted


def from_store(store: RunStore, protocol: str | None = None) -> tuple[list[Rating], list[Judgment]]:
    """Human ratings from annotations and judge ratings from judgments (of one protocol)."""
    languages = store.dialogue_languages()

    def rows(
        target: Target,
        rater: str,
        kind: RaterKind,
        values: Iterable[tuple[str, float | str | None]],
    ) -> Iterator[Rating]:
        language = languages.get(target.dialogue_id, UNKNOWN_LANGUAGE)
        for dimension, value in values:
            yield Rating(
                item_id=item_key(target),
                rater=rater,
                kind=kind,
                dimension=dimension,
                value=value,
                language=language,
            )

    ratings: list[Rating] = []
    for annotation in store.records(Annotation):
        ratings += rows(
            annotation.target, annotation.annotator_id, "human", flatten(annotation.labels)
        )
    where = {"protocol": protocol} if protocol else {}
    judgments = list(store.records(Judgment, **where))
    protocols = {j.protocol for j in judgments}
    if len(protocols) > 1:
        raise DialbenchError(
            f"the run holds judgments of several protocols ({', '.join(sorted(protocols))}); "
            "choose one with --protocol"
        )
    for judgment in judgments:
        values = flatten(judgment.result) if judgment.result else [(UNSCORED, None)]
        ratings += rows(judgment.target, judgment.judge_model, "judge", values)
    return ratings, judgments


def to_frame(ratings: Sequence[Rating], default_language: str | None = None) -> pd.DataFrame:
    """The ratings as a table, each item in one language: the one its ratings name (a judge's
    file often names none), else `default_language`."""
    frame = pd.DataFrame([r.model_dump() for r in ratings], columns=COLUMNS)
    named = frame[frame["language"] != UNKNOWN_LANGUAGE].drop_duplicates("item_id")
    language = frame["item_id"].map(named.set_index("item_id")["language"])
    frame["language"] = language.astype(object).fillna(default_language or UNKNOWN_LANGUAGE)
    return frame
