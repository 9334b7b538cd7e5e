"""The options several commands share: the run directory (`RUN` or `--run`, default
`runs/default`), repeated KEY=VALUE options, and `--format` with its choices from the table of
file formats (io/registry.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperCommand, TyperOption

from dialbench.errors import DialbenchError

if TYPE_CHECKING:
    from typer import _click

    from dialbench.io.file_format import Content, FileFormat
    from dialbench.llm.specs import ModelConfig

RunDir = Annotated[
    Path,
    typer.Argument(
        envvar="DIALBENCH_RUN", help="Run directory holding dialbench.sqlite.", show_default=True
    ),
]


def _stored(run: Path) -> Path:
    """A run a command reads must hold a store: refused while the command line is read,
    before the command loads what it works with (a one-line error at once)."""
    from dialbench.store.connection import require_store

    return require_store(run)


# The run a command reads (never makes): refused at once where it holds no store.
StoredRun = Annotated[
    Path,
    typer.Argument(
        envvar="DIALBENCH_RUN",
        help="Run directory holding dialbench.sqlite.",
        show_default=True,
        callback=_stored,
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
        from pydantic_core import PydanticCustomError

        from dialbench.io.registry import FORMATS, formats_holding

        known = [fmt.name for fmt in formats_holding(contents, writable=writable)]
        if name not in known and name in FORMATS:
            FORMATS.load(name)  # a broken plugin's format: refused saying why, not as unknown
        if name not in known:
            message = f"{name!r} is not one of {', '.join(known)}"
            raise PydanticCustomError("format", "{message}", {"message": message})
        return name

    return parse


class _FormatsHelp(str):
    """A `--format` option's help until help is shown: listing the formats imports each one's
    module, which a command that fails or runs without showing its help never needs."""

    contents: tuple[Content, ...]
    writable: bool
    guessed: bool

    def __new__(cls, contents: tuple[Content, ...], writable: bool, guessed: bool) -> _FormatsHelp:
        made = super().__new__(cls, "")
        made.contents, made.writable, made.guessed = contents, writable, guessed
        return made

    def written(self) -> str:
        from dialbench.io.registry import formats_holding

        held = formats_holding(self.contents, writable=self.writable)
        listed = "; ".join(map(_files_of, held))
        return f"{listed}." + (" Else guessed from the name." if self.guessed else "")


class FormatsCommand(TyperCommand):
    """A command with a `--format` option (`format_option`): its help lists the formats as
    registered when the help is shown. Pass as `@app.command(cls=FormatsCommand)`."""

    def format_help(self, ctx: _click.Context, formatter: _click.HelpFormatter) -> None:
        for param in self.params:
            if isinstance(param, TyperOption) and isinstance(param.help, _FormatsHelp):
                param.help = param.help.written()
        super().format_help(ctx, formatter)


def format_option(
    contents: Iterable[Content], *, writable: bool = False, guessed: bool = True
) -> Any:
    """A `--format` option for files holding any of `contents` (`guessed`: from the file's name
    when not given); help lists each format with its suffixes, on a `FormatsCommand`."""
    wanted = tuple(contents)
    return typer.Option(
        "--format",
        "-f",
        parser=_named(wanted, writable),
        metavar="<format>",
        help=_FormatsHelp(wanted, writable, guessed),
    )


def concurrent_model(spec: str, concurrency: int) -> ModelConfig:
    """`--concurrency` dialogues in flight need as many calls at once from an HTTP model (its
    default is 32); a model in this process still answers one call at a time."""
    from dialbench.llm.specs import ModelConfig

    config = ModelConfig(spec=spec)
    return config if config.local else ModelConfig(spec=spec, max_concurrency=concurrency)
