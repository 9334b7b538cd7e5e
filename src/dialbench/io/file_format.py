"""What a file format is: the files it claims, what it holds, and how it is read and written.

Each format is one `FileFormat`, defined beside the code that reads it and listed by name in
`io/registry.py` (FORMATS). What is being read matters as much as the file's name: a `.csv`
holds turns when dialogues are read, and the long ratings format when ratings are.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from dialbench.errors import InputError

if TYPE_CHECKING:
    from dialbench.schema import StoredRecord
    from dialbench.store import RunStore

RecordKind = Literal["dialogues", "judgments", "annotations"]
RECORD_KINDS: tuple[RecordKind, ...] = ("dialogues", "judgments", "annotations")
# Records, ratings (one value per item, rater and dimension: what `metaeval` compares), or texts
# (rows with a text field: scene and persona lists).
Content = Literal["dialogues", "judgments", "annotations", "ratings", "texts"]
# A raw value (or the problem with it) and where it was: a line or row number, when there is one.
Item = tuple[int | None, dict[str, Any] | InputError]
# redact: personal data becomes placeholders before anything is stored; keep: text as it is.
PersonalData = Literal["redact", "keep"]
# What a reader raises for a file with no record in it.
EMPTY_FILE = "the file is empty: no records to import"


@dataclass(frozen=True)
class ReadRequest:
    """What a reader is asked for, and how a table's columns and speakers map onto fields;
    `language` is the user's for dialogues whose file names none (production logs detect it
    from the user's turns only where it is not given). What the reader read and passed over,
    as it holds nothing asked for (an OTLP file's metrics), it counts in `passed_over`, by
    what it was, for the import to say."""

    content: Content
    columns: Mapping[str, str] = field(default_factory=dict)
    roles: Mapping[str, str] = field(default_factory=dict)
    language: str | None = None
    passed_over: Counter[str] = field(default_factory=Counter, compare=False)


@dataclass(frozen=True)
class Selection:
    """Which stored records an export writes: one kind, filtered by indexed columns (`where`);
    for ratings, the judgments of one protocol where several are stored."""

    records: RecordKind
    protocol: str | None = None
    where: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Export:
    """What a writer took from the store, before anything touches the disk: how many records
    (or rows) it will write, and how it writes them to a path."""

    count: int
    write: Callable[[Path], None]


Reader = Callable[[Path, ReadRequest], Iterator[Item]]
Writer = Callable[["RunStore", Selection], Export]


@dataclass(frozen=True)
class FileFormat:
    """One format of files (or folders) that dialbench reads, and perhaps writes.

    `read` yields raw values of the content asked for (validated by the caller, so every
    problem is reported with its line); `suffixes` are the name endings it claims, the first
    one naming what `write` exports; `recognises_folder` tells whether a folder is one of its
    own (None: it is never a folder); `recognises_content` tells, from the first record only,
    whether a file of a suffix several formats claim is one of its own (None: the format reads
    what the others of its suffix do not recognise, as dialbench's own JSONL does);
    `personal_data` marks production traffic (chat logs, traces), whose personal data is
    redacted on import unless the user keeps it.
    """

    name: str
    description: str
    holds: tuple[Content, ...]
    read: Reader
    suffixes: tuple[str, ...] = ()
    recognises_folder: Callable[[Path], bool] | None = None
    recognises_content: Callable[[Path], bool] | None = None
    write: Writer | None = None
    personal_data: bool = False

    def suffix_of(self, path: Path) -> str | None:
        """The longest of its suffixes that the path's name ends with, if any."""
        name = path.name.lower()
        return max((s for s in self.suffixes if name.endswith(s)), key=len, default=None)

    @property
    def written_suffix(self) -> str:
        """What an export's default name ends with (nothing for a folder)."""
        return self.suffixes[0] if self.suffixes else ""


def records_writer(write: Callable[[Sequence[StoredRecord], Path], None]) -> Writer:
    """A writer of the selected stored records themselves (JSONL, Parquet, `datasets`)."""

    def prepare(store: RunStore, selection: Selection) -> Export:
        from dialbench.schema import RECORD_TYPES

        chosen = RECORD_TYPES[selection.records]
        selected: list[StoredRecord] = list(store.records(chosen, **selection.where))
        return Export(len(selected), partial(write, selected))

    return prepare
