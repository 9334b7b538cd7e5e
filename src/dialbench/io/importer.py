"""Importing a file into a run store: read and validate everything first, then one transaction."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from dialbench.hashing import file_sha256
from dialbench.io.file_format import RecordKind
from dialbench.io.formats import ImportOptions, format_for, load_records
from dialbench.schema import Dialogue, Judgment, Provenance, Record, Run, StoredRecord
from dialbench.store import OnConflict, RunStore


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
