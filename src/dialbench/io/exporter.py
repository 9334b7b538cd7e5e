"""Exporting stored records: JSONL for interchange, Parquet and `datasets` for analysis."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Literal

from dialbench.errors import DialbenchError
from dialbench.io.columnar import write_hf, write_parquet
from dialbench.io.formats import RecordKind
from dialbench.io.jsonl import write_jsonl
from dialbench.schema import RECORD_TYPES, StoredRecord
from dialbench.store import RunStore

ExportFormat = Literal["jsonl", "parquet", "hf"]
SUFFIX: dict[ExportFormat, str] = {"jsonl": ".jsonl", "parquet": ".parquet", "hf": ""}


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
    **where: str,
) -> int:
    """Write the stored records of one kind (filtered by e.g. language="de"); returns the count.

    The output appears whole or not at all: it is written beside the target, then renamed.
    """
    path = Path(path)
    selected: list[StoredRecord] = list(store.records(RECORD_TYPES[records], **where))
    if not selected:
        filters = ", ".join(f"{k}={v}" for k, v in where.items())
        raise DialbenchError(f"no {records} to export" + (f" with {filters}" if filters else ""))
    path.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=path.parent))
    try:
        staged = staging / (path.name or "export")
        _write(selected, fmt, staged)
        if path.is_dir():
            shutil.rmtree(path)
        os.replace(staged, path)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return len(selected)
