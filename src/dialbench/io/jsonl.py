"""JSON Lines: one record per line, the interchange format of every record type."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from pydantic import BaseModel

from dialbench.errors import InputError
from dialbench.io.file_format import EMPTY_FILE, FileFormat, Item, ReadRequest, records_writer
from dialbench.io.text import decode_utf8
from dialbench.schema import StoredRecord

MAX_LINE_BYTES = 16 * 1024 * 1024


class _KeysRepeated(dict[str, Any]):
    """A JSON object that named some key more than once (Python's json keeps the last value)."""

    def __init__(self, pairs: list[tuple[str, Any]], repeated: list[str]) -> None:
        super().__init__(pairs)
        self.repeated = repeated


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    repeated = sorted({key for key in keys if keys.count(key) > 1})
    return _KeysRepeated(pairs, repeated) if repeated else dict(pairs)


# A decoder that keeps a repeated key visible (see `strict_json_loads`); `raw_decode` reads one
# value at a position, so the items of a JSON array can be told apart by their line.
STRICT_DECODER = json.JSONDecoder(object_pairs_hook=_object)


def strict_json_loads(text: str) -> Any:
    """`json.loads`, but a repeated key, NaN, Infinity and numbers too large for a double (which
    the standard library would turn silently into the last value, nan and inf, stored as null)
    are kept visible for `json_value_problems`."""
    return STRICT_DECODER.decode(text)


def json_value_problems(value: Any, field: str = "") -> Iterator[tuple[str, str]]:
    """(field, problem) for each repeated key and non-finite number in a `strict_json_loads`
    value; fields are dotted paths, list items by index."""
    if isinstance(value, float) and not math.isfinite(value):
        yield field, "not a finite number (NaN, Infinity, or too large for a double)"
    elif isinstance(value, dict):
        for key in getattr(value, "repeated", ()):
            yield f"{field}.{key}" if field else key, "the key appears more than once"
        for key, item in value.items():
            yield from json_value_problems(item, f"{field}.{key}" if field else key)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from json_value_problems(item, f"{field}.{index}" if field else str(index))


def _skip_rest_of_line(stream: BinaryIO) -> int:
    skipped = 0
    while chunk := stream.readline(1024 * 1024):
        skipped += len(chunk)
        if chunk.endswith(b"\n"):
            break
    return skipped


def read_jsonl(path: Path) -> Iterator[Item]:
    """Yield (line number, JSON object) per non-blank line, or the InputError for that line.

    Lines are read with a size cap, so one enormous line is reported without being held in memory.
    """
    seen_any = False
    with path.open("rb") as stream:
        line_no = 0
        while raw := stream.readline(MAX_LINE_BYTES + 1):
            line_no += 1
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                size = len(raw) + _skip_rest_of_line(stream)
                message = (
                    f"line is {size:,} bytes, over the {MAX_LINE_BYTES:,}-byte limit for one record"
                )
                yield line_no, InputError(path, message, line=line_no)
                seen_any = True
                continue
            if not raw.strip():
                continue
            seen_any = True
            try:
                value = strict_json_loads(decode_utf8(raw, path, line_no))
            except InputError as bad:
                yield line_no, bad
                continue
            except json.JSONDecodeError as bad:
                message = f"invalid JSON: {bad.msg} (column {bad.colno})"
                yield line_no, InputError(path, message, line=line_no)
                continue
            if not isinstance(value, dict):
                found = type(value).__name__
                yield (
                    line_no,
                    InputError(path, f"expected a JSON object, got {found}", line=line_no),
                )
                continue
            problem = next(json_value_problems(value), None)
            if problem is not None:
                field, message = problem
                yield line_no, InputError(path, message, line=line_no, field=field)
                continue
            yield line_no, value
    if not seen_any:
        raise InputError(path, EMPTY_FILE)


def write_jsonl(records: Iterable[BaseModel], stream: Any) -> int:
    """Write one record per line; returns how many."""
    count = 0
    for record in records:
        stream.write(record.model_dump_json() + "\n")
        count += 1
    return count


def write_jsonl_file(records: Sequence[StoredRecord], path: Path) -> None:
    with path.open("w", encoding="utf-8") as stream:
        write_jsonl(records, stream)


def _read(path: Path, request: ReadRequest) -> Iterator[Item]:
    return read_jsonl(path)


JSONL = FileFormat(
    "jsonl",
    "dialbench records, one JSON object per line",
    holds=("dialogues", "judgments", "annotations", "texts"),
    read=_read,
    suffixes=(".jsonl", ".ndjson", ".json"),
    write=records_writer(write_jsonl_file),
)
