"""Plain text, one item per line: scene and persona lists as people write them by hand."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from dialbench.io.file_format import FileFormat, Item, ReadRequest
from dialbench.io.text import decode_utf8


def read_lines(path: Path, request: ReadRequest) -> Iterator[Item]:
    """Each non-blank line as `{"text": line}`, with its line number."""
    text = decode_utf8(path.read_bytes(), path)
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            yield number, {"text": line.strip()}


TXT = FileFormat(
    "txt",
    "plain text, one item per line",
    holds=("texts",),
    read=read_lines,
    suffixes=(".txt",),
)
