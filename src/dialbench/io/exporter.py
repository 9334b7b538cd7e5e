"""Exporting stored records: JSONL for interchange, Parquet and `datasets` for analysis, and the
long ratings format (one CSV row per item, rater and dimension) that `metaeval` reads back."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from dialbench.errors import DialbenchError
from dialbench.io.columnar import write_hf, write_parquet
from dialbench.io.formats import RecordKind
from dialbench.io.jsonl import write_jsonl
from dialbench.io.long_format import long_rows, write_long_csv
from dialbench.schema import RECORD_TYPES, StoredRecord
from dialbench.store import RunStore

ExportFormat = Literal["jsonl", "parquet", "hf", "long-csv"]
SUFFIX: dict[ExportFormat, str] = {
    "jsonl": ".jsonl",
    "parquet": ".parquet",
    "hf": "",
    "long-csv": ".long.csv",
}


def default_export_path(store: RunStore, fmt: ExportFormat, records: RecordKind) -> Path:
    return store.path.parent / "export" / f"{records}{SUFFIX[fmt]}"


def _write(records: list[StoredRecord], fmt: ExportFormat, path: Path) -> None:
    if fmt == "jsonl":
        with path.open("w", encoding="utf-8") as stream:
            write_jsonl(records, stream)
    elif fmt == "parquet":
        write_parquet(records, path)
    else:
        write_hf(records, path)


def export_records(
    store: RunStore,
    path: str | Path,
    fmt: ExportFormat = "jsonl",
    records: RecordKind = "dialogues",
    protocol: str | None = None,
    **where: str,
) -> int:
    """Write the stored records of one kind (filtered by e.g. language="de"); returns the count
    of records, or of rows for the long format (judgments of one `protocol` where several are
    stored).

    The output appears whole or not at all: it is written beside the target, then renamed.
    """
    path = Path(path)
    if fmt == "long-csv":
        rows = long_rows(store, records, protocol)
        if not rows:
            raise DialbenchError(f"no {records} to export")
        _write_whole(path, lambda staged: write_long_csv(rows, staged))
        return len(rows)
    selected: list[StoredRecord] = list(store.records(RECORD_TYPES[records], **where))
    if not selected:
        filters = ", ".join(f"{k}={v}" for k, v in where.items())
        raise DialbenchError(f"no {records} to export" + (f" with {filters}" if filters else ""))
    _write_whole(path, lambda staged: _write(selected, fmt, staged))
    return len(selected)


def _write_whole(path: Path, write: Callable[[Path], None]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=path.parent))
    try:
        staged = staging / (path.name or "export")
        write(staged)
        if path.is_dir():
            shutil.rmtree(path)
        os.replace(staged, path)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
