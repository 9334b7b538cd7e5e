"""Ratings in files, read and written: the one long format (one row per item, rater and
dimension) that `export --format long-csv`, `annotate export/import` and `metaeval` share, and
`read_ratings`, which reads ratings from a file in any format that holds them (this one, or the
ABC-Eval behaviour JSON of `io/abc_eval.py`).

Long format (CSV, TSV or JSONL), one row per value:
`item_id, annotator_or_judge, dimension, value, language, kind` (language and kind optional; kind
is human or judge and overrides what the file was passed as, --against or --predictions). Read as
annotations (`annotate import`), the human rows of one annotator and item become one Annotation.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from pathlib import Path

from pydantic import Field, JsonValue

from dialbench.errors import DialbenchError, InputError, InputErrors
from dialbench.io.csv_turns import read_rows
from dialbench.io.file_format import Export, FileFormat, Item, Reader, ReadRequest, Selection
from dialbench.io.jsonl import read_jsonl
from dialbench.io.registry import read_items
from dialbench.io.validation import validate_items
from dialbench.issue_labels import ISSUES_PREFIX
from dialbench.ratings import (
    UNKNOWN_LANGUAGE,
    RaterKind,
    Rating,
    human_ratings,
    item_target,
    judge_ratings,
    scalar,
)
from dialbench.safe_text import from_spreadsheet_cell, spreadsheet_cell
from dialbench.schema import LanguageCode, Record
from dialbench.store import RunStore

LONG_COLUMNS = ("item_id", "annotator_or_judge", "dimension", "value", "language", "kind")
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


def _table_rows(path: Path, delimiter: str) -> Iterator[Item]:
    """Rows with their empty cells left out (an empty value is kept: it means no value), and
    cells `write_long_csv` made spreadsheet-safe read back as they were."""
    _, rows = read_rows(path, delimiter)
    for line, row in rows:
        if isinstance(row, dict):
            row = {
                k: from_spreadsheet_cell(v) if isinstance(v, str) else v
                for k, v in row.items()
                if v != "" or k == "value"
            }
        yield line, row


def _with_values(items: Iterator[Item]) -> Iterator[Item]:
    """Text values read as ratings (`cell_value`); other JSON values are kept as they are."""
    for line, row in items:
        if isinstance(row, dict) and isinstance(row.get("value"), str):
            row = {**row, "value": cell_value(row["value"])}
        yield line, row


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


def _ratings(path: Path, items: Iterator[Item], kind: RaterKind) -> list[tuple[int | None, Rating]]:
    """Long-format rows as ratings with their lines, every problem reported with its line;
    `kind` is the rater kind of rows that name none."""
    rows = validate_items(path, items, LongRow)
    repeated = list(_repeated_ratings(path, rows))
    if repeated:
        raise InputErrors(repeated)
    return [
        (
            line,
            Rating(
                item_id=row.item_id,
                rater=row.annotator_or_judge,
                kind=row.kind or kind,
                dimension=row.dimension,
                value=scalar(row.value),
                language=row.language or UNKNOWN_LANGUAGE,
            ),
        )
        for line, row in rows
    ]


def read_ratings(path: Path, kind: RaterKind) -> list[Rating]:
    """Ratings from a file in any format that holds them, told apart by its name: `.json` is
    the ABC-Eval behaviour format, `.csv`, `.tsv` and `.jsonl` the long format."""
    return [rating for _, rating in _ratings(path, read_items(path, ReadRequest("ratings")), kind)]


def long_rows(store: RunStore, records: str, protocol: str | None) -> list[list[str]]:
    """Judgments or annotations as long-format rows; an unscored judgment is one row with
    dimension `*` and no value."""
    if records == "dialogues":
        raise DialbenchError("the long-csv format holds judgments or annotations (--records)")
    if records == "annotations":  # labels do not depend on which protocols judged the run
        ratings = human_ratings(store)
    else:
        ratings = judge_ratings(store, [protocol] if protocol else [])[0]
    return [
        [
            r.item_id,
            r.rater,
            r.dimension,
            "" if r.value is None else str(r.value),
            r.language,
            r.kind,
        ]
        for r in ratings
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
    """The issues back into their group, as the web app and the issues judge store them
    (`issues.unsafe` -> {"issues": {"unsafe": ..}}); other dimensions keep their names, dots
    and all."""
    nested: dict[str, JsonValue] = {}
    issues: dict[str, JsonValue] = {}
    for dimension, value in flat.items():
        if dimension.startswith(ISSUES_PREFIX):
            issues[dimension.removeprefix(ISSUES_PREFIX)] = value
        else:
            nested[dimension] = value
    if issues:
        group = ISSUES_PREFIX.rstrip(".")
        if group in nested:
            raise InputError(path, f"item {item}: {group!r} is both a value and a group of values")
        nested[group] = issues
    return nested


def _annotations(path: Path, items: Iterator[Item]) -> Iterator[Item]:
    """The human rows (as `annotate export` writes them), one Annotation per annotator and
    item, at the line of its first row."""
    grouped: dict[tuple[str, str], dict[str, JsonValue]] = defaultdict(dict)
    first_line: dict[tuple[str, str], int | None] = {}
    for line, rating in _ratings(path, items, "human"):
        if rating.kind == "human" and rating.value is not None:
            key = (rating.rater, rating.item_id)
            first_line.setdefault(key, line)
            grouped[key][rating.dimension] = _label(rating.dimension, rating.value)
    if not grouped:
        raise InputError(path, "no human ratings to import")
    for (rater, item), labels in grouped.items():
        target = item_target(item).model_dump()
        labels = _nested(path, item, labels)
        yield first_line[(rater, item)], {"annotator_id": rater, "target": target, "labels": labels}


def _reader(rows: Callable[[Path], Iterator[Item]]) -> Reader:
    def read(path: Path, request: ReadRequest) -> Iterator[Item]:
        items = _with_values(rows(path))
        return _annotations(path, items) if request.content == "annotations" else items

    return read


def _long_csv_export(store: RunStore, selection: Selection) -> Export:
    rows = long_rows(store, selection.records, selection.protocol)
    return Export(len(rows), partial(write_long_csv, rows))


LONG_CSV = FileFormat(
    "long-csv",
    "ratings in the long format, one row per item, rater and dimension",
    holds=("ratings", "annotations"),
    read=_reader(partial(_table_rows, delimiter=",")),
    suffixes=(".long.csv", ".csv"),
    write=_long_csv_export,
)
LONG_TSV = FileFormat(
    "long-tsv",
    "ratings in the long format, tab-separated",
    holds=("ratings", "annotations"),
    read=_reader(partial(_table_rows, delimiter="\t")),
    suffixes=(".tsv", ".tab"),
)
# A .jsonl file of annotations holds Annotation records (the jsonl format), so as JSON Lines
# the long format holds ratings only.
LONG_JSONL = FileFormat(
    "long-jsonl",
    "ratings in the long format, one JSON object per row",
    holds=("ratings",),
    read=_reader(read_jsonl),
    suffixes=(".jsonl", ".ndjson"),
)
