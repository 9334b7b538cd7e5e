"""The one table of file formats, and which of them reads a file.

A new format is its own `FileFormat` (see `io/file_format.py`) plus one line in FORMATS; a plugin
adds one through the `dialbench.formats` entry-point group. Formats are told apart by what is
being read as well as by the file's name: a `.json` file holds records when importing but the
ABC-Eval behaviour format when reading ratings. Where several formats claim a name (a `.jsonl`
of dialbench's records, of chat logs or of spans), the file's first record decides.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from dialbench.errors import InputError
from dialbench.io.file_format import RECORD_KINDS, Content, FileFormat, Item, ReadRequest
from dialbench.registry import Registry

FORMATS: Registry[FileFormat] = Registry(
    "file format",
    {
        "jsonl": "dialbench.io.jsonl:JSONL",
        "csv": "dialbench.io.csv_turns:CSV",
        "tsv": "dialbench.io.csv_turns:TSV",
        "mutual-xlsx": "dialbench.io.mutual:MUTUAL_XLSX",
        "dbdc3": "dialbench.io.dbdc:DBDC3",
        "parquet": "dialbench.io.columnar:PARQUET",
        "hf": "dialbench.io.columnar:HF",
        "openai-log": "dialbench.io.openai_log:OPENAI_LOG",
        "otel-genai": "dialbench.io.otel_genai:OTEL_GENAI",
        "langfuse": "dialbench.io.langfuse:LANGFUSE",
        "langsmith": "dialbench.io.langsmith:LANGSMITH",
        "long-csv": "dialbench.io.long_format:LONG_CSV",
        "long-tsv": "dialbench.io.long_format:LONG_TSV",
        "long-jsonl": "dialbench.io.long_format:LONG_JSONL",
        "abc-eval": "dialbench.io.abc_eval:ABC_EVAL",
        "txt": "dialbench.io.lines:TXT",
    },
    group="formats",
)
# Records are read by commands that take --format (import, validate, annotate); ratings
# (metaeval's files) and texts (scene and persona lists) by their names alone.
NAMED_WITH_AN_OPTION: frozenset[Content] = frozenset(RECORD_KINDS)


def formats_holding(contents: Iterable[Content], *, writable: bool = False) -> list[FileFormat]:
    """The formats holding any of `contents` (and that can be written, if asked), in table
    order: the choices of a command's --format."""
    wanted = set(contents)
    return [
        fmt
        for _, fmt in FORMATS.items()
        if wanted.intersection(fmt.holds) and (fmt.write is not None or not writable)
    ]


def _listing(words: Iterable[str], last: str = "and") -> str:
    """`a`, `a and b`, `a, b and c`."""
    *rest, final = words
    return f"{', '.join(rest)} {last} {final}" if rest else final


def _unknown(path: Path, content: Content, holding: list[FileFormat]) -> InputError:
    known = sorted({suffix for fmt in holding for suffix in fmt.suffixes})
    folders = [fmt.description for fmt in holding if fmt.recognises_folder]
    if path.is_dir():
        what = _listing(folders, "or") if folders else f"a file of {content}"
        return InputError(path, f"is a folder, but not {what}")
    if folders:
        known.append(f"or a folder: {_listing(folders, 'or')}")
    hint = "; pass --format" if content in NAMED_WITH_AN_OPTION else ""
    suffix = path.suffix.lower()
    return InputError(
        path, f"unknown file type {suffix!r} for {content} (known: {', '.join(known)}){hint}"
    )


def _recognises(fmt: FileFormat, path: Path) -> bool:
    if fmt.recognises_content is None or not path.is_file():
        return False
    try:
        return fmt.recognises_content(path)
    except OSError:
        return False


def formats_recognising(path: Path, content: Content) -> list[FileFormat]:
    """The formats of `content` that recognise the file by its first record, in table order."""
    return [fmt for fmt in formats_holding([content]) if _recognises(fmt, path)]


def _by_content(path: Path, claimants: list[FileFormat]) -> FileFormat:
    """Of the formats claiming a file's suffix, the one that recognises its first record; else
    the one that reads what none recognises (dialbench's own JSONL)."""
    recognising = [f for f in claimants if _recognises(f, path)]
    if len(recognising) == 1:
        return recognising[0]
    names = [f.name for f in recognising] or [f.name for f in claimants]
    if recognising:
        problem = f"the formats {_listing(names)} each recognise this file"
    else:
        fallback = [f for f in claimants if f.recognises_content is None]
        if fallback:
            return fallback[0]
        problem = f"none of the formats {_listing(names, 'or')} recognises this file"
    choices = _listing([f"--format {name}" for name in names], "or")
    raise InputError(path, f"{problem}; pass {choices}")


def detect_format(path: Path, content: Content) -> FileFormat:
    """The format of `content` at `path`: a folder's by what is in it, a file's by the end of
    its name (the longest suffix claimed wins), and where several formats claim that suffix,
    by its first record (`_by_content`)."""
    holding = formats_holding([content])
    if path.is_dir():
        found = [f for f in holding if f.recognises_folder and f.recognises_folder(path)]
        if not found:
            raise _unknown(path, content, holding)
        return found[0]
    claims = [(len(suffix), f) for f in holding if (suffix := f.suffix_of(path))]
    if not claims:
        raise _unknown(path, content, holding)
    longest = max(length for length, _ in claims)
    claimants = [f for length, f in claims if length == longest]
    return claimants[0] if len(claimants) == 1 else _by_content(path, claimants)


def check_exists(path: Path) -> None:
    """Refuse a file or folder that is not there, before any format is looked for."""
    if not path.exists():
        raise InputError(path, "no such file")


def format_for(path: Path, content: Content, name: str | None = None) -> FileFormat:
    """The format that reads `content` from `path`: the one named (--format), else detected."""
    check_exists(path)
    if name is None:
        return detect_format(path, content)
    named = FORMATS.load(name)
    if content not in named.holds:
        raise InputError(path, f"the {name} format holds {_listing(named.holds)}, not {content}")
    return named


def read_items(path: Path, request: ReadRequest, name: str | None = None) -> Iterator[Item]:
    """Raw values with their line (or row) numbers, from whichever format reads the file."""
    return format_for(path, request.content, name).read(path, request)
