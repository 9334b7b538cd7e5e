"""Which reader handles a file, and how raw rows become validated records."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Literal

from pydantic import Field

from dialbench.errors import InputError, InputErrors
from dialbench.io.columnar import read_hf, read_parquet
from dialbench.io.dbdc import read_dbdc_annotations, read_dbdc_dialogues
from dialbench.io.jsonl import Item, read_jsonl
from dialbench.io.mutual import read_mutual_xlsx
from dialbench.io.table import read_table
from dialbench.io.validation import validate_items
from dialbench.schema import RECORD_TYPES, LanguageCode, Record, StoredRecord

Format = Literal["jsonl", "csv", "tsv", "mutual-xlsx", "dbdc3", "parquet", "hf"]
RecordKind = Literal["dialogues", "judgments", "annotations"]
BY_SUFFIX: dict[str, Format] = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".xlsx": "mutual-xlsx",
    ".parquet": "parquet",
    ".zip": "dbdc3",
}


class ImportOptions(Record):
    """How to read a file: its format (else guessed from its name), defaults for missing fields."""

    format: Format | None = None
    records: RecordKind = "dialogues"
    language: LanguageCode | None = Field(
        default=None, description="language of dialogues that do not name one"
    )
    source: str | None = Field(default=None, description="source of dialogues that do not name one")
    columns: dict[str, str] = Field(default_factory=dict, description="CSV/TSV: field -> column")
    roles: dict[str, str] = Field(default_factory=dict, description="CSV/TSV: speaker -> role")


def detect_format(path: Path) -> Format:
    if path.is_dir():
        if (path / "dataset_info.json").exists():
            return "hf"
        if any(path.rglob("*.log.json")):
            return "dbdc3"
        raise InputError(path, "is a folder, but neither a saved HF dataset nor DBDC3 data")
    if not path.exists():
        raise InputError(path, "no such file")
    found = BY_SUFFIX.get(path.suffix.lower())
    if found is None:
        known = ", ".join(sorted(BY_SUFFIX))
        raise InputError(path, f"unknown file type {path.suffix!r} (known: {known}); pass --format")
    return found


def read_items(path: Path, options: ImportOptions) -> Iterator[Item]:
    """Raw records with their line (or row) numbers, from whichever reader fits the file."""
    fmt = options.format or detect_format(path)
    if fmt in ("csv", "tsv", "mutual-xlsx") and options.records != "dialogues":
        raise InputError(path, f"the {fmt} format holds dialogues only")
    if fmt == "jsonl":
        return read_jsonl(path)
    if fmt in ("csv", "tsv"):
        return read_table(path, "," if fmt == "csv" else "\t", options.columns, options.roles)
    if fmt == "mutual-xlsx":
        return read_mutual_xlsx(path)
    if fmt == "dbdc3":
        if options.records == "judgments":
            raise InputError(path, "DBDC3 data holds dialogues and annotations, not judgments")
        if options.records == "annotations":
            return read_dbdc_annotations(path)
        return read_dbdc_dialogues(path)
    if fmt == "parquet":
        return read_parquet(path)
    return read_hf(path)


def load_records(path: Path, options: ImportOptions) -> list[tuple[int | None, StoredRecord]]:
    """Read and validate a whole file, collecting every problem; raise if there was any."""
    items = read_items(path, options)
    if options.records == "dialogues":
        items = (_with_defaults(item, options) for item in items)
    records = validate_items(path, items, RECORD_TYPES[options.records])
    repeated = list(_ids_repeated_with_other_content(path, records))
    if repeated:
        raise InputErrors(repeated)
    return records


def _ids_repeated_with_other_content(
    path: Path, records: list[tuple[int | None, StoredRecord]]
) -> Iterator[InputError]:
    """An id given twice in one file with different content: which one the user meant is
    theirs to say (an identical repeat is harmless and is stored once)."""
    first: dict[str, tuple[int | None, dict[str, object]]] = {}
    for line, record in records:
        content = record.model_dump(mode="json", exclude={"provenance"})
        seen = first.setdefault(record.id, (line, content))
        if seen[1] != content:
            where = "an earlier record" if seen[0] is None else f"line {seen[0]}"
            message = f"id {record.id!r} is also used by {where}, with different content"
            yield InputError(path, message, line=line, field="id")


def _with_defaults(item: Item, options: ImportOptions) -> Item:
    line, raw = item
    if not isinstance(raw, InputError):
        for field, default in (("language", options.language), ("source", options.source)):
            if default is not None:
                raw.setdefault(field, default)
    return line, raw
