"""Ratings in files, read and written: the one long format (one row per item, rater and
dimension) that `export --format long-csv`, `annotate export/import` and `metaeval` share, and
the ABC-Eval turn-level behaviour format.

Long format (CSV, TSV or JSONL), one row per value:
`item_id, annotator_or_judge, dimension, value, language, kind` (language and kind optional; kind
is human or judge and overrides what the file was passed as, --against or --predictions).
Behaviour format (JSON, as published with GPT-ABCEval): `{dialogue_id: [turn, ...]}` where each
turn has `"behaviors": {name: {"human": [a, b], "gpt": x, ...}}`; `human` lists the annotators'
values, every other key is a judge.
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import Field, JsonValue

from dialbench.errors import DialbenchError, InputError, InputErrors
from dialbench.io.jsonl import Item, json_value_problems, read_jsonl, strict_json_loads
from dialbench.io.ratings import (
    UNKNOWN_LANGUAGE,
    RaterKind,
    Rating,
    from_store,
    item_target,
    scalar,
)
from dialbench.io.table import read_rows
from dialbench.io.text import decode_utf8
from dialbench.io.validation import validate_items
from dialbench.safe_text import spreadsheet_cell
from dialbench.schema import Annotation, LanguageCode, Record
from dialbench.store import RunStore

LONG_COLUMNS = ("item_id", "annotator_or_judge", "dimension", "value", "language", "kind")
ISSUES_PREFIX = "issues."
TRUE, FALSE = {"true", "yes", "y"}, {"false", "no", "n"}


class LongRow(Record):
    item_id: str = Field(min_length=1)
    annotator_or_judge: str = Field(min_length=1)
    dimension: str = Field(min_length=1)
    value: JsonValue = None
    language: LanguageCode | None = None
    kind: RaterKind | None = None


def cell_value(text: str) -> float | str | None:
    """A CSV cell as a rating: empty = no value, yes/no and true/false as 1/0, numbers as floats."""
    lowered = text.strip().lower()
    if not lowered:
        return None
    if lowered in TRUE or lowered in FALSE:
        return float(lowered in TRUE)
    try:
        return float(lowered)
    except ValueError:
        return text.strip()


def _long_items(path: Path) -> Iterator[Item]:
    suffix = path.suffix.lower()
    if suffix in (".csv", ".tsv"):
        _, rows = read_rows(path, "," if suffix == ".csv" else "\t")
        for line, row in rows:
            if isinstance(row, dict):
                row = {k: v for k, v in row.items() if v != "" or k == "value"}
            yield line, row
    elif suffix in (".jsonl", ".ndjson"):
        yield from read_jsonl(path)
    else:
        raise InputError(path, f"unknown file type {suffix!r} for ratings (csv, tsv or jsonl)")


def _repeated_ratings(path: Path, rows: list[tuple[int | None, LongRow]]) -> Iterator[InputError]:
    """A rater rating the same item on the same dimension twice: which value counts is the
    user's to decide, so both rows are named rather than one picked."""
    first: dict[tuple[str, str, str], int | None] = {}
    for line, row in rows:
        key = (row.item_id, row.annotator_or_judge, row.dimension)
        if key in first:
            message = (
                f"{row.annotator_or_judge} already rated item {row.item_id} on {row.dimension} "
                f"at line {first[key]}; keep one row per rater, item and dimension"
            )
            yield InputError(path, message, line=line)
        else:
            first[key] = line


def read_long(path: Path, kind: RaterKind) -> list[Rating]:
    """Ratings from a long-format file; every problem is reported with its line."""
    rows = validate_items(path, _long_items(path), LongRow)
    repeated = list(_repeated_ratings(path, rows))
    if repeated:
        raise InputErrors(repeated)
    return [
        Rating(
            item_id=row.item_id,
            rater=row.annotator_or_judge,
            kind=row.kind or kind,
            dimension=row.dimension,
            value=cell_value(row.value) if isinstance(row.value, str) else scalar(row.value),
            language=row.language or UNKNOWN_LANGUAGE,
        )
        for _, row in rows
    ]


def _behaviour_ratings(where: str, item_id: str, behaviours: Any) -> Iterator[Rating | InputError]:
    if not isinstance(behaviours, dict):
        yield InputError(where, "expected an object of behaviours", field="behaviors")
        return
    for name, values in behaviours.items():
        if not isinstance(values, dict) or not isinstance(values.get("human", []), list):
            message = 'expected {"human": [values], "<judge>": value}'
            yield InputError(where, message, field=f"behaviors.{name}")
            continue
        for rater, value in values.items():
            raters = (
                [(f"human-{i + 1}", "human", v) for i, v in enumerate(value)]
                if rater == "human"
                else [(rater, "judge", value)]
            )
            for rater_name, kind, raw in raters:
                yield Rating(
                    item_id=item_id,
                    rater=rater_name,
                    kind=kind,
                    dimension=name,
                    value=scalar(raw),
                )


def read_behaviours(path: Path) -> list[Rating]:
    """Ratings from the ABC-Eval behaviour JSON; problems name the dialogue and turn."""
    try:
        data = strict_json_loads(decode_utf8(path.read_bytes(), path))
    except json.JSONDecodeError as bad:
        raise InputError(
            path, f"invalid JSON: {bad.msg} (column {bad.colno})", line=bad.lineno
        ) from None
    if not isinstance(data, dict):
        raise InputError(path, "expected an object of {dialogue_id: [turns]}")
    bad_values = [InputError(path, m, field=f) for f, m in json_value_problems(data)]
    if bad_values:
        raise InputErrors(bad_values)
    ratings: list[Rating] = []
    errors: list[InputError] = []
    for dialogue_id, turns in data.items():
        if not isinstance(turns, list):
            errors.append(InputError(path, "expected a list of turns", field=dialogue_id))
            continue
        for index, turn in enumerate(turns):
            where = f"{path} (dialogue {dialogue_id}, turn {index})"
            behaviours = turn.get("behaviors") if isinstance(turn, dict) else None
            item_id = f"{dialogue_id}#{index}"
            for result in _behaviour_ratings(where, item_id, behaviours):
                if isinstance(result, InputError):
                    errors.append(result)
                else:
                    ratings.append(result)
    if errors:
        raise InputErrors(errors)
    if not ratings:
        raise InputError(path, "no behaviour ratings found")
    return ratings


def read_ratings(path: Path, kind: RaterKind) -> list[Rating]:
    """Either format, told apart by the file's type: .json is the behaviour format."""
    if not path.exists():
        raise InputError(path, "no such file")
    if path.suffix.lower() == ".json":
        return read_behaviours(path)
    return read_long(path, kind)


def long_rows(store: RunStore, records: str, protocol: str | None) -> list[list[str]]:
    """Judgments or annotations as long-format rows; an unscored judgment is one row with
    dimension `*` and no value."""
    if records == "dialogues":
        raise DialbenchError("the long-csv format holds judgments or annotations (--records)")
    kind = "judge" if records == "judgments" else "human"
    ratings, _ = from_store(store, protocol)
    return [
        [r.item_id, r.rater, r.dimension, "" if r.value is None else str(r.value), r.language, kind]
        for r in ratings
        if r.kind == kind
    ]


def write_long_csv(rows: Iterable[list[str]], path: Path) -> None:
    """Every cell made spreadsheet-safe: ids and names come from users' files."""
    with path.open("w", encoding="utf-8", newline="") as stream:
        writer = csv.writer(stream)
        writer.writerow(LONG_COLUMNS)
        writer.writerows([[str(spreadsheet_cell(cell)) for cell in row] for row in rows])


def _label(dimension: str, value: float | str | None) -> JsonValue:
    """A long-format value back in the shape the web app stores: issues as booleans, whole
    numbers as integers."""
    if dimension.startswith(ISSUES_PREFIX) and isinstance(value, float):
        return value >= 0.5
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _nested(path: Path, item: str, flat: dict[str, JsonValue]) -> dict[str, JsonValue]:
    """Dotted dimensions back into nested labels: `issues.unsafe` -> {"issues": {"unsafe": ..}}."""
    nested: dict[str, JsonValue] = {}
    for dimension, value in flat.items():
        *parents, leaf = dimension.split(".")
        level = nested
        for parent in parents:
            child = level.setdefault(parent, {})
            if not isinstance(child, dict):
                raise InputError(
                    path, f"item {item}: {parent!r} is both a value and a group of values"
                )
            level = child
        level[leaf] = value
    return nested


def annotations_from_long_csv(path: Path) -> list[Annotation]:
    """The human rows of a long CSV (as `annotate export --format csv` writes it), one
    Annotation per annotator and item."""
    grouped: dict[tuple[str, str], dict[str, JsonValue]] = defaultdict(dict)
    for rating in read_ratings(path, "human"):
        if rating.kind == "human" and rating.value is not None:
            grouped[(rating.rater, rating.item_id)][rating.dimension] = _label(
                rating.dimension, rating.value
            )
    return [
        Annotation(annotator_id=rater, target=item_target(item), labels=_nested(path, item, labels))
        for (rater, item), labels in grouped.items()
    ]
