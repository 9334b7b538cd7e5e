"""The options several commands share: the run directory (`RUN` or `--run`, default
`runs/default`), repeated KEY=VALUE options, and `--format` with its choices from the table of
file formats (io/registry.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic_core import PydanticCustomError

from dialbench.errors import DialbenchError
from dialbench.io.file_format import Content, FileFormat
from dialbench.io.registry import FORMATS, formats_holding

RunDir = Annotated[
    Path,
    typer.Argument(
        envvar="DIALBENCH_RUN", help="Run directory holding dialbench.sqlite.", show_default=True
    ),
]
RunOption = Annotated[
    Path,
    typer.Option(
        "--run", "-r", envvar="DIALBENCH_RUN", help="Run directory (created when missing)."
    ),
]
DEFAULT_RUN = Path("runs/default")


def key_value_pairs(values: list[str], what: str, form: str = "KEY=VALUE") -> dict[str, str]:
    """Repeated KEY=VALUE options (`--column text=utterance`, `--option few_shot=true`); `form`
    names the two sides as the option's help does (`HUMAN=JUDGE`)."""
    pairs = {}
    for value in values:
        key, sep, mapped = value.partition("=")
        if not sep or not key or not mapped:
            raise DialbenchError(f"{what} {value!r} is not of the form {form}")
        pairs[key] = mapped
    return pairs


PairOption = Annotated[
    list[str],
    typer.Option(
        help="HUMAN=JUDGE: compare the judges' JUDGE dimension with the humans' HUMAN one, "
        "e.g. overall=sensibleness; repeatable."
    ),
]
ScaleOption = Annotated[
    list[str],
    typer.Option(help="DIMENSION=binary|nominal|ordinal|interval, or =ordinal:LOW,...,HIGH."),
]


def dimension_pairs(values: list[str]) -> dict[str, str]:
    """--pair HUMAN=JUDGE values as judge dimension -> human dimension."""
    pairs = (key_value_pairs([value], "--pair", "HUMAN=JUDGE") for value in values)
    return {judge: human for pair in pairs for human, judge in pair.items()}


def _files_of(fmt: FileFormat) -> str:
    """`jsonl (.jsonl, .ndjson, .json)`, `hf (a folder)`."""
    claimed = [*fmt.suffixes, *(["a folder"] if fmt.recognises_folder else [])]
    return f"{fmt.name} ({', '.join(claimed)})"


def _named(contents: tuple[Content, ...], writable: bool) -> Callable[[str], str]:
    """A parser that reads the table when the option is used, so that formats registered after
    the command was built (by a test, or a plugin loaded late) are accepted too."""

    def parse(name: str) -> str:
        known = [fmt.name for fmt in formats_holding(contents, writable=writable)]
        if name not in known and name in FORMATS:
            FORMATS.load(name)  # a broken plugin's format: refused saying why, not as unknown
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
