"""Importing a file into a run store: read and validate everything first (`load_records`, also
what `validate` and scripts call), then one transaction (`import_file`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from pydantic import Field, field_validator

from dialbench.errors import InputError, InputErrors
from dialbench.hashing import file_sha256
from dialbench.io.file_format import Item, ReadRequest, RecordKind
from dialbench.io.registry import FORMATS, format_for, read_items
from dialbench.io.validation import validate_items
from dialbench.schema import (
    RECORD_TYPES,
    Dialogue,
    Judgment,
    LanguageCode,
    Provenance,
    Record,
    Run,
    StoredRecord,
)
from dialbench.store import OnConflict, RunStore


class ImportOptions(Record):
    """How to read a file: its format (else guessed from its name), defaults for missing fields."""

    format: str | None = Field(default=None, description="a name in FORMATS")
    records: RecordKind = "dialogues"
    language: LanguageCode | None = Field(
        default=None, description="language of dialogues that do not name one"
    )
    source: str | None = Field(default=None, description="source of dialogues that do not name one")
    columns: dict[str, str] = Field(default_factory=dict, description="CSV/TSV: field -> column")
    roles: dict[str, str] = Field(default_factory=dict, description="CSV/TSV: speaker -> role")

    @field_validator("format")
    @classmethod
    def _known_format(cls, name: str | None) -> str | None:
        return name if name is None else FORMATS.known_name(name)


def load_records(path: str | Path, options: ImportOptions) -> list[tuple[int | None, StoredRecord]]:
    """Read and validate a whole file, collecting every problem; raise if there was any."""
    path = Path(path)
    request = ReadRequest(options.records, options.columns, options.roles)
    items = read_items(path, request, options.format)
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


class ImportReport(Record):
    file: str
    format: str
    records: RecordKind
    read: int
    added: int
    unchanged: int
    replaced: int
    run_id: str


def _traced(record: StoredRecord, run: Run, path: Path, line: int | None) -> StoredRecord:
    """Give a record without provenance the import that brought it in: file, line and run."""
    if not isinstance(record, Dialogue | Judgment) or record.provenance is not None:
        return record
    origin = Provenance(
        run_id=run.id, config_hash=run.config_hash, source_file=str(path), source_line=line
    )
    return record.model_copy(update={"provenance": origin})


Loaded = list[tuple[int | None, StoredRecord]]


def import_file(
    store: RunStore,
    path: str | Path,
    options: ImportOptions | None = None,
    on_conflict: OnConflict = "error",
    check: Callable[[Path, Loaded], None] | None = None,
) -> ImportReport:
    """Import one file; a bad file raises before anything is written, naming file and line.
    `check` looks at the records (with their lines) first, and raises what it refuses."""
    path = Path(path)
    options = options or ImportOptions()
    fmt = format_for(path, options.records, options.format).name
    options = options.model_copy(update={"format": fmt})
    loaded = load_records(path, options)
    if check is not None:
        check(path, loaded)
    config = {
        "file": str(path),
        "sha256": file_sha256(path) if path.is_file() else None,
        "options": options.model_dump(mode="json"),
        "on_conflict": on_conflict,
    }
    with store.run("import", config) as run:
        result = store.add([_traced(r, run, path, line) for line, r in loaded], run, on_conflict)
    return ImportReport(
        file=str(path),
        format=fmt,
        records=options.records,
        read=len(loaded),
        added=result.added,
        unchanged=result.unchanged,
        replaced=result.replaced,
        run_id=run.id,
    )
