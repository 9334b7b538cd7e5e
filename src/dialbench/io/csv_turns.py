"""CSV/TSV of turns: one row per turn, grouped into dialogues by a dialogue-id column.

Users map their own column names onto dialbench's fields (`--column text=utterance`) and their
speaker labels onto roles (`--role A=user --role B=assistant`). Read for texts (scene and
persona lists), each row is taken as it is.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from dialbench.errors import InputError
from dialbench.io.file_format import EMPTY_FILE, FileFormat, Item, Reader, ReadRequest
from dialbench.io.text import decode_utf8
from dialbench.schema import SPEAKERS

FIELDS = ("dialogue_id", "role", "text", "language", "model")
REQUIRED = ("dialogue_id", "role", "text")


def _column_of(header: list[str], columns: Mapping[str, str], path: Path) -> dict[str, str | None]:
    unknown = sorted(set(columns) - set(FIELDS))
    if unknown:
        raise InputError(path, f"cannot map {unknown}: the fields are {', '.join(FIELDS)}")
    found: dict[str, str | None] = {}
    for field in FIELDS:
        name = columns.get(field, field)
        if name in header:
            found[field] = name
        elif field in REQUIRED or field in columns:
            raise InputError(
                path,
                f"no column '{name}' for field '{field}' (columns: {', '.join(header)}); "
                f"map it with --column {field}=COLUMN",
                line=1,
            )
        else:
            found[field] = None
    return found


def read_rows(path: Path, delimiter: str) -> tuple[list[str], Iterator[Item]]:
    """The header, and each non-blank row as {column: stripped cell} with its line number."""
    text = decode_utf8(path.read_bytes(), path)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    header = next(reader, None)
    if header is None:
        raise InputError(path, EMPTY_FILE)

    def rows() -> Iterator[Item]:
        seen = False
        for row in reader:
            line = reader.line_num
            if not any(cell.strip() for cell in row):
                continue
            seen = True
            if len(row) != len(header):
                message = f"{len(row)} cells, but the header has {len(header)}"
                yield line, InputError(path, message, line=line)
            else:
                yield line, {name: cell.strip() for name, cell in zip(header, row, strict=True)}
        if not seen:
            raise InputError(path, "no rows below the header: no records to import")

    return header, rows()


def read_turns(
    path: Path, delimiter: str, columns: Mapping[str, str], roles: Mapping[str, str]
) -> Iterator[Item]:
    """Yield one raw dialogue per dialogue id (at the line of its first row), in file order."""
    header, rows = read_rows(path, delimiter)
    column = _column_of(header, columns, path)
    dialogues: dict[str, tuple[int | None, dict[str, Any]]] = {}
    for line, row in rows:
        if isinstance(row, InputError):
            yield line, row
            continue
        cell = {f: row[c] for f, c in column.items() if c is not None}
        role = roles.get(cell["role"], cell["role"])
        if role not in SPEAKERS:
            message = f"unknown role {cell['role']!r}: expected user or assistant"
            hint = " (map speaker labels with --role LABEL=user)" if not roles else ""
            yield line, InputError(path, message + hint, line=line, field=column["role"])
            continue
        if not cell["dialogue_id"]:
            yield line, InputError(path, "empty", line=line, field=column["dialogue_id"])
            continue
        turn: dict[str, Any] = {"role": role, "text": cell["text"]}
        if cell.get("model"):
            turn["model"] = cell["model"]
        _, dialogue = dialogues.setdefault(
            cell["dialogue_id"], (line, {"id": cell["dialogue_id"], "turns": []})
        )
        if cell.get("language"):
            dialogue.setdefault("language", cell["language"])
        dialogue["turns"].append(turn)
    yield from dialogues.values()


def _reader(delimiter: str) -> Reader:
    def read(path: Path, request: ReadRequest) -> Iterator[Item]:
        if request.content == "texts":
            return read_rows(path, delimiter)[1]
        return read_turns(path, delimiter, request.columns, request.roles)

    return read


CSV = FileFormat(
    "csv",
    "a table of turns, one row per turn",
    holds=("dialogues", "texts"),
    read=_reader(","),
    suffixes=(".csv",),
)
TSV = FileFormat(
    "tsv",
    "a tab-separated table of turns, one row per turn",
    holds=("dialogues", "texts"),
    read=_reader("\t"),
    suffixes=(".tsv", ".tab"),
)
