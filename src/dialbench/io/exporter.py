"""Exporting stored records in any format of FORMATS that can be written: JSONL for interchange,
Parquet and `datasets` for analysis, and the long ratings format (one CSV row per item, rater and
dimension) that `metaeval` reads back."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from dialbench.errors import DialbenchError
from dialbench.io.file_format import RECORD_KINDS, FileFormat, RecordKind, Selection, Writer
from dialbench.io.registry import FORMATS, formats_holding
from dialbench.store import RunStore


def writer_of(fmt: str) -> Writer:
    found = FORMATS.load(fmt).write
    if found is None:
        written = ", ".join(f.name for f in formats_holding(RECORD_KINDS, writable=True))
        raise DialbenchError(f"the {fmt} format is read, never written (written: {written})")
    return found


def counted(fmt: str, records: RecordKind) -> str:
    """What an export's count counts: rows for a format of ratings (one per item, rater and
    dimension), else the records themselves."""
    return "rows" if "ratings" in FORMATS.load(fmt).holds else records


def default_export_path(store: RunStore, fmt: str, records: RecordKind) -> Path:
    return store.path.parent / "export" / f"{records}{FORMATS.load(fmt).written_suffix}"


def export_records(
    store: RunStore,
    path: str | Path,
    fmt: str = "jsonl",
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
    _check_target(path, FORMATS.load(fmt))
    export = writer_of(fmt)(store, Selection(records, protocol, where))
    if not export.count:
        filters = ", ".join(f"{k}={v}" for k, v in where.items())
        raise DialbenchError(f"no {records} to export" + (f" with {filters}" if filters else ""))
    _write_whole(path, export.write)
    return export.count


def _check_target(path: Path, fmt: FileFormat) -> None:
    """An export replaces a file, or a folder only when it is an earlier export in the same
    format: `-o RUN` or `-o .` once deleted the folder, run store and all."""
    if path.is_dir() and fmt.recognises_folder is None:
        raise DialbenchError(f"{path}: is a folder; give the {fmt.name} export a file name")
    if path.is_dir() and fmt.recognises_folder and not fmt.recognises_folder(path):
        raise DialbenchError(
            f"{path}: is a folder, not an earlier {fmt.name} export; give one that does not "
            "exist yet"
        )
    if path.is_file() and fmt.recognises_folder:
        raise DialbenchError(f"{path}: is a file; the {fmt.name} format writes a folder")


def _write_whole(path: Path, write: Callable[[Path], None]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=path.parent))
    except (FileExistsError, NotADirectoryError):
        raise DialbenchError(f"{path.parent}: cannot write there (a file is in its way)") from None
    except OSError as error:
        raise DialbenchError(f"{path.parent}: cannot write there ({error.strerror})") from None
    try:
        staged = staging / path.name
        write(staged)
        if path.is_dir():  # an earlier export (`_check_target`)
            shutil.rmtree(path)
        os.replace(staged, path)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
