"""JSON records from an export that is either JSON Lines or one JSON document, and a look at a
file's first record that tells which format wrote it without reading the file.

Tracing tools export both ways: Langfuse's "Download JSON" is one pretty-printed document, its
table exports and the collector's file exporter one record per line. JSON Lines is streamed; a
document is read whole (it is one trace or one session: large exports belong in JSON Lines).
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path
from typing import Any

from dialbench.errors import InputError
from dialbench.io.file_format import EMPTY_FILE, Item
from dialbench.io.jsonl import (
    MAX_LINE_BYTES,
    STRICT_DECODER,
    json_value_problems,
    read_jsonl,
)
from dialbench.io.text import decode_utf8

# How much of a file's start is read to recognise its format: the first record's keys are there
# unless the values before them are huge.
HEAD_BYTES = 1024 * 1024
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:]')


def leading_keys(path: Path) -> frozenset[str]:
    """The keys of the file's first JSON object (the top-level one, or the first item of a
    top-level array) that its first MiB shows, whatever the layout: one line or pretty-printed."""
    with path.open("rb") as stream:
        head = stream.read(HEAD_BYTES).decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    if head.startswith("["):
        head = head[1:].lstrip()
    if not head.startswith("{"):
        return frozenset()
    keys: set[str] = set()
    depth = 0
    previous = ""
    for match in _TOKEN.finditer(head):
        token = match.group()
        if token in "{[":
            depth += 1
        elif token in "}]":
            depth -= 1
            if depth == 0:
                break
        elif token == ":" and depth == 1 and previous.startswith('"'):
            with suppress(ValueError):  # a bad escape: the reader reports it
                keys.add(json.loads(previous))
        previous = token
    return frozenset(keys)


def _first_line(path: Path) -> bytes:
    with path.open("rb") as stream:
        while line := stream.readline(MAX_LINE_BYTES + 1):
            if line.strip():
                return line
    return b""


def _is_one_document(path: Path) -> bool:
    """True unless the first line is a whole JSON object (then the file is JSON Lines), or too
    long to be one (then JSON Lines reports it, without reading the file whole), or a broken one
    from brace to brace (then JSON Lines reports it and reads on; a pretty-printed document
    opens with a brace alone)."""
    line = _first_line(path)
    if len(line) > MAX_LINE_BYTES:
        return False
    try:
        first = json.loads(line.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        text = line.removeprefix(codecs.BOM_UTF8).strip()
        return not (len(text) > 1 and text.startswith(b"{") and text.endswith(b"}"))
    return not isinstance(first, dict)


def _problem(path: Path, value: Any, line: int) -> InputError | None:
    if not isinstance(value, dict):
        return InputError(path, f"expected a JSON object, got {type(value).__name__}", line=line)
    found = next(json_value_problems(value), None)
    return None if found is None else InputError(path, found[1], line=line, field=found[0])


class _Lines:
    """Line numbers of positions in a text read forwards, counted once."""

    def __init__(self, text: str) -> None:
        self.text, self.position, self.line = text, 0, 1

    def at(self, position: int) -> int:
        self.line += self.text.count("\n", self.position, position)
        self.position = position
        return self.line


def _after_space(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    return position


def _document(path: Path) -> Iterator[Item]:
    """An object is one record; an array's items are one each, with the line each starts on.
    A file of nothing but space, or of an empty array, holds no record."""
    text = decode_utf8(path.read_bytes(), path)
    lines = _Lines(text)
    position = _after_space(text, 0)
    if position == len(text):
        raise InputError(path, EMPTY_FILE)
    in_array = text[position] == "["
    position = _after_space(text, position + in_array)
    if in_array and text.startswith("]", position):
        raise InputError(path, EMPTY_FILE)
    while not (in_array and text.startswith("]", position)):
        line = lines.at(position)
        try:
            value, position = STRICT_DECODER.raw_decode(text, position)
        except json.JSONDecodeError as bad:
            message = f"invalid JSON: {bad.msg} (column {bad.colno})"
            yield bad.lineno, InputError(path, message, line=bad.lineno)
            return
        yield line, _problem(path, value, line) or value
        position = _after_space(text, position)
        if not in_array:
            if position < len(text):
                line = lines.at(position)
                yield line, InputError(path, "extra data after the JSON document", line=line)
            return
        if text.startswith(",", position):
            position = _after_space(text, position + 1)
        elif not text.startswith("]", position):
            line = lines.at(position)
            yield line, InputError(path, "expected ',' or ']' between records", line=line)
            return


def read_json_records(path: Path) -> Iterator[Item]:
    """(line, JSON object) per record, or the InputError for it: JSON Lines streamed, or one
    document (an object, or an array of objects) read whole."""
    if _is_one_document(path):
        yield from _document(path)
    else:
        yield from read_jsonl(path)
