"""`--format`, with its choices from the table of file formats (io/formats.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import typer
from pydantic_core import PydanticCustomError

from dialbench.io.file_format import Content, FileFormat
from dialbench.io.formats import formats_holding


def _files_of(fmt: FileFormat) -> str:
    """`jsonl (.jsonl, .ndjson, .json)`, `hf (a folder)`."""
    claimed = [*fmt.suffixes, *(["a folder"] if fmt.recognises_folder else [])]
    return f"{fmt.name} ({', '.join(claimed)})"


def _named(contents: tuple[Content, ...], writable: bool) -> Callable[[str], str]:
    """A parser that reads the table when the option is used, so that formats registered after
    the command was built (by a test, or a plugin loaded late) are accepted too."""

    def parse(name: str) -> str:
        known = [fmt.name for fmt in formats_holding(contents, writable=writable)]
        if name not in known:
            message = f"{name!r} is not one of {', '.join(known)}"
            raise PydanticCustomError("format", "{message}", {"message": message})
        return name

    return parse


def format_option(
    contents: Iterable[Content], *, writable: bool = False, guessed: bool = True
) -> Any:
    """A `--format` option for files holding any of `contents` (`guessed`: from the file's name
    when not given); help lists each format with its suffixes, as registered when the command
    line was built."""
    wanted = tuple(contents)
    listed = "; ".join(map(_files_of, formats_holding(wanted, writable=writable)))
    return typer.Option(
        "--format",
        "-f",
        parser=_named(wanted, writable),
        metavar="<format>",
        help=f"{listed}." + (" Else guessed from the name." if guessed else ""),
    )
