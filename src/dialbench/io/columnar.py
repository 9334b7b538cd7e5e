"""Parquet files and Hugging Face `datasets` folders, for analysis and publication.

Each row has the record's summary columns (the same ones the store indexes) for quick filtering,
plus `record`, the whole record as JSON, so that reading a file back loses nothing. A dialogue's
`turns` column lists each turn's role, text, model and `tool`: null but for a tool turn, whose
call it holds (name, arguments as JSON text, call id, kind), so a query can find every call
without parsing records.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from dialbench.errors import DialbenchError, InputError
from dialbench.io.file_format import FileFormat, Item, ReadRequest, records_writer
from dialbench.schema import Dialogue, StoredRecord, ToolUse
from dialbench.store import TABLES


def _tool_cell(tool: ToolUse | None) -> dict[str, Any] | None:
    """A call as one struct: its arguments, any JSON value, as their JSON text."""
    if tool is None:
        return None
    return {
        "name": tool.name,
        "arguments": json.dumps(tool.arguments, ensure_ascii=False),
        "call_id": tool.call_id,
        "kind": tool.kind,
    }


def _turns_column(dialogues: Sequence[Dialogue]) -> Any:
    """The `turns` column, its type given so that `tool` is the same struct whether or not any
    dialogue written holds a tool turn."""
    import pyarrow as pa

    tool = pa.struct([(name, pa.string()) for name in ("name", "arguments", "call_id", "kind")])
    turn = pa.struct(
        [("role", pa.string()), ("text", pa.string()), ("model", pa.string()), ("tool", tool)]
    )
    cells = [
        [
            {"role": t.role, "text": t.text, "model": t.model, "tool": _tool_cell(t.tool)}
            for t in d.turns
        ]
        for d in dialogues
    ]
    return pa.array(cells, type=pa.list_(turn))


def to_arrow(records: Sequence[StoredRecord]) -> Any:
    """Summary columns, then `turns` for dialogues, then `record`."""
    import pyarrow as pa

    table = pa.Table.from_pylist(
        [{"id": r.id, **TABLES[type(r)].columns(r), "record": r.model_dump_json()} for r in records]
    )
    dialogues = [r for r in records if isinstance(r, Dialogue)]
    if not dialogues:
        return table
    return table.add_column(table.column_names.index("record"), "turns", _turns_column(dialogues))


def write_parquet(records: Sequence[StoredRecord], path: Path) -> None:
    import pyarrow.parquet as pq

    pq.write_table(to_arrow(records), path)


def _datasets() -> Any:
    try:
        import datasets
    except ImportError:
        raise DialbenchError(
            "the Hugging Face format needs the `datasets` package: pip install 'dialbench[hf]'"
        ) from None
    return datasets


def write_hf(records: Sequence[StoredRecord], folder: Path) -> None:
    datasets = _datasets()
    datasets.disable_progress_bars()
    datasets.Dataset(to_arrow(records)).save_to_disk(str(folder))


def _records_of(path: Path, column: list[Any]) -> Iterator[Item]:
    for row, text in enumerate(column, start=1):
        try:
            value = json.loads(text)
        except (TypeError, json.JSONDecodeError):
            yield row, InputError(path, "not a JSON record", line=row, field="record")
            continue
        yield row, value


def _record_column(path: Path, names: list[str], column: Any) -> list[Any]:
    if "record" not in names:
        raise InputError(path, "no 'record' column: not written by dialbench export")
    return list(column("record"))


def read_parquet(path: Path, request: ReadRequest) -> Iterator[Item]:
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except Exception as bad:  # pyarrow raises several unrelated types for a bad file
        raise InputError(path, f"not a readable Parquet file ({bad})") from None
    column = _record_column(path, table.column_names, lambda n: table.column(n).to_pylist())
    yield from _records_of(path, column)


def read_hf(folder: Path, request: ReadRequest) -> Iterator[Item]:
    try:
        dataset = _datasets().load_from_disk(str(folder))
    except (FileNotFoundError, ValueError) as bad:
        raise InputError(folder, f"not a saved Hugging Face dataset ({bad})") from None
    column = _record_column(folder, dataset.column_names, lambda n: dataset[n])
    yield from _records_of(folder, column)


def _is_saved_dataset(folder: Path) -> bool:
    return (folder / "dataset_info.json").exists()


PARQUET = FileFormat(
    "parquet",
    "a Parquet file written by dialbench export",
    holds=("dialogues", "judgments", "annotations"),
    read=read_parquet,
    suffixes=(".parquet",),
    write=records_writer(write_parquet),
)
HF = FileFormat(
    "hf",
    "a saved Hugging Face dataset",
    holds=("dialogues", "judgments", "annotations"),
    read=read_hf,
    recognises_folder=_is_saved_dataset,
    write=records_writer(write_hf),
)
