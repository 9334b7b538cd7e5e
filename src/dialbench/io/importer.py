"""Importing a file into a run store, in memory that does not grow with the file.

Two passes over the file. The first (`check_file`, also what `validate` runs) validates every
record and keeps none, only the hashes that find repeated ids and repeated conversations
(`io/repeats.py`): a file with any problem is refused, naming file, line and field, before
anything is written. The second reads the file again and stores what the first kept, a batch of
records per transaction: an import killed midway leaves whole batches, and run again it adds the
rest (ids come from content, and a record stored unchanged is left as it is). Reading twice costs
the validation twice; the other way to keep "nothing from a bad file", one transaction over the
whole file, would hold the store's write lock for all of it and lose everything on a kill.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import TypeVar

from pydantic import Field, field_validator

from dialbench.errors import InputError, InputErrors
from dialbench.hashing import file_sha256
from dialbench.io.file_format import Item, PersonalData, ReadRequest, RecordKind
from dialbench.io.personal_data import PLACEHOLDERS, RedactionCounts, redact_dialogue
from dialbench.io.registry import FORMATS, format_for, read_items
from dialbench.io.repeats import Conflict, RepeatFinder, Repeats
from dialbench.io.validation import Problems, validated_items
from dialbench.schema import (
    RECORD_TYPES,
    Dialogue,
    Invocation,
    Judgment,
    LanguageCode,
    Provenance,
    Record,
    StoredRecord,
    left_out_when_none,
)
from dialbench.store import OnConflict, RunStore

BATCH = 1000
T = TypeVar("T")
Loaded = list[tuple[int | None, StoredRecord]]
# Progress of long work over records: its step ("checking", "storing"), records done, and
# the total when known.
StepProgress = Callable[[str, int, int | None], None]


class ImportOptions(Record):
    """How to read a file: its format (else guessed from its name), defaults for missing fields."""

    format: str | None = Field(default=None, description="a name in FORMATS")
    records: RecordKind = "dialogues"
    language: LanguageCode | None = Field(
        default=None, description="language of dialogues that do not name one"
    )
    source: str | None = Field(default=None, description="source of dialogues that do not name one")
    columns: dict[str, str] = Field(default_factory=dict, description="CSV/TSV: field -> column")
    roles: dict[str, str] = Field(default_factory=dict, description="CSV/TSV: speaker -> role")
    # Both are left out of a dump while undecided, so a pipeline's import stages written
    # before they existed keep their identities.
    dedupe: bool | None = left_out_when_none(
        description="drop a dialogue whose turns are a strict prefix of another's in the file; "
        "default: on for formats of production logs, which repeat the conversation so far",
    )
    personal_data: PersonalData | None = left_out_when_none(
        description="redact e-mail addresses, phone, card and account numbers and introduced "
        "names (io/personal_data.py) or keep text as it is; default: redact for formats of "
        "production logs, keep for others",
    )

    @field_validator("format")
    @classmethod
    def _known_format(cls, name: str | None) -> str | None:
        return name if name is None else FORMATS.known_name(name)


def _resolved(path: Path, options: ImportOptions) -> ImportOptions:
    """The options with the format found, and whether to drop prefixes and to redact decided."""
    fmt = format_for(path, options.records, options.format)
    dialogues = options.records == "dialogues"
    if options.personal_data == "redact" and not dialogues:
        raise InputError(path, f"personal data is redacted from dialogues, not {options.records}")
    dedupe = fmt.personal_data if options.dedupe is None else options.dedupe
    by_format: PersonalData = "redact" if fmt.personal_data and dialogues else "keep"
    return options.model_copy(
        update={
            "format": fmt.name,
            "dedupe": dedupe and dialogues,
            "personal_data": options.personal_data or by_format,
        }
    )


def _with_defaults(item: Item, options: ImportOptions) -> Item:
    line, raw = item
    if not isinstance(raw, InputError):
        for field, default in (("language", options.language), ("source", options.source)):
            if default is not None:
                raw.setdefault(field, default)
    return line, raw


class _Redactions:
    """What redaction found in each record of a pass, in reading order (a count of each kind in
    an array: 20 bytes a record), so that the import counts what it stores: a conversation
    logged call by call is redacted in each of its prefixes, and only the longest is kept."""

    def __init__(self) -> None:
        self._kinds = {kind: array("I") for kind in PLACEHOLDERS}

    def add(self, counts: Counter[str]) -> None:
        for kind, found in self._kinds.items():
            found.append(counts[kind])

    def kept(self, repeats: Repeats) -> RedactionCounts:
        """The counts of the records that `repeats` does not drop."""
        import numpy as np

        stored = np.ones(len(self._kinds["name"]), dtype=bool)
        stored[repeats.dropped] = False
        return RedactionCounts(
            **{
                kind: int(np.frombuffer(found, dtype=np.uint32)[stored].sum())
                for kind, found in self._kinds.items()
            }
        )


def _records(
    path: Path,
    options: ImportOptions,
    problems: Problems,
    redacted: _Redactions | None = None,
    passed_over: Counter[str] | None = None,
) -> Iterator[tuple[int | None, StoredRecord]]:
    """The file's valid records, read lazily, each problem going to `problems`. Every pass over
    a file reads it through here: a step each record must pass before it is checked or stored
    belongs here, and must give the same record in every pass. What redaction found in each
    record goes to `redacted`, and what the reader passed over to `passed_over`, when given:
    one pass counts them."""
    request = ReadRequest(
        options.records,
        options.columns,
        options.roles,
        options.language,
        Counter() if passed_over is None else passed_over,
    )
    items = read_items(path, request, options.format)
    if options.records == "dialogues":
        items = (_with_defaults(item, options) for item in items)
    records = validated_items(path, items, RECORD_TYPES[options.records], problems)
    if options.personal_data != "redact":
        yield from records
        return
    for line, record in records:
        assert isinstance(record, Dialogue)  # _resolved redacts nothing else
        clean, counts = redact_dialogue(record)
        if redacted is not None:
            redacted.add(counts)
        yield line, clean


def _batches(items: Iterable[T], size: int = BATCH) -> Iterator[list[T]]:
    iterator = iter(items)
    while batch := list(islice(iterator, size)):
        yield batch


def _conflict_errors(
    path: Path, conflicts: list[Conflict], records: Iterable[tuple[int | None, StoredRecord]]
) -> list[InputError]:
    """An id given twice in one file with different content: which one the user meant is
    theirs to say. Only hashes were kept, so the ids are looked up in `records` (read again)."""
    wanted = {conflict.position for conflict in conflicts}
    ids: dict[int, str] = {}
    for at, (_, record) in enumerate(records):
        if at in wanted:
            ids[at] = record.id
            if len(ids) == len(wanted):
                break
    errors = []
    for conflict in conflicts:
        where = (
            "an earlier record" if conflict.first_line is None else f"line {conflict.first_line}"
        )
        message = f"id {ids[conflict.position]!r} is also used by {where}, with different content"
        errors.append(InputError(path, message, line=conflict.line, field="id"))
    return errors


def _stored_differently(path: Path, store: RunStore, batch: Loaded) -> Iterator[InputError]:
    lines = {record.id: line for line, record in batch}
    for record in store.stored_differently([record for _, record in batch]):
        message = (
            f"id {record.id!r} is already stored with different content "
            "(import with --on-conflict keep or replace)"
        )
        yield InputError(path, message, line=lines[record.id], field="id")


@dataclass(frozen=True)
class CheckedFile:
    """What the validating pass found: the options it resolved, how many valid records the file
    holds, which of them are not to be stored, what redaction replaced in those to be
    stored (None: text kept as it is), and what the reader passed over (by what it was)."""

    options: ImportOptions
    read: int
    repeats: Repeats
    redacted: RedactionCounts | None
    passed_over: dict[str, int]


def check_file(
    path: str | Path,
    options: ImportOptions,
    *,
    store: RunStore | None = None,
    check: Callable[[Path, Loaded], None] | None = None,
    progress: StepProgress | None = None,
) -> CheckedFile:
    """Validate a whole file, keeping no records; raise every problem found, naming its line.
    With a `store`, a record stored there with other content is a problem too; `check` looks
    at the records a batch at a time, and raises the problems it finds."""
    path = Path(path)
    options = _resolved(path, options)
    problems = Problems()
    finder = RepeatFinder(prefixes=bool(options.dedupe))
    read = 0
    redacted = _Redactions()
    passed_over = Counter[str]()
    for batch in _batches(_records(path, options, problems, redacted, passed_over)):
        for line, record in batch:
            finder.add(line, record)
        read += len(batch)
        if check is not None:
            try:
                check(path, batch)
            except InputErrors as refused:
                problems.add(refused.errors)
        if store is not None:
            problems.add(_stored_differently(path, store, batch))
        if progress is not None:
            progress("checking", read, None)
    problems.raise_any()
    repeats = finder.finish()
    if repeats.conflicts:
        again = _records(path, options, Problems())
        problems.add(_conflict_errors(path, repeats.conflicts[: problems.limit], again))
        problems.raise_any()
    counts = redacted.kept(repeats) if options.personal_data == "redact" else None
    return CheckedFile(options, read, repeats, counts, dict(passed_over))


def load_records(path: str | Path, options: ImportOptions) -> Loaded:
    """Read and validate a whole file into memory, for scripts and small files: every valid
    record, repeats and prefixes included; raise if there was any problem."""
    path = Path(path)
    problems = Problems()
    finder = RepeatFinder(prefixes=False)
    loaded = []
    for line, record in _records(path, options, problems):
        finder.add(line, record)
        loaded.append((line, record))
    problems.raise_any()
    conflicts = finder.finish().conflicts
    problems.add(_conflict_errors(path, conflicts[: problems.limit], loaded))
    problems.raise_any()
    return loaded


class ImportResult(Record):
    file: str
    format: str
    records: RecordKind
    read: int
    repeats: int = Field(description="identical repeats of a record earlier in the file")
    prefixes: int = Field(description="dialogues dropped as the start of a longer one")
    redacted: RedactionCounts | None = Field(
        description="personal data replaced in the records stored; None: text kept as it is"
    )
    passed_over: dict[str, int] = Field(
        default_factory=dict,
        description="what the file holds that no record is made of (an OTLP file's metrics)",
    )
    added: int
    unchanged: int
    replaced: int
    run_id: str


def _traced(record: StoredRecord, run: Invocation, path: Path, line: int | None) -> StoredRecord:
    """Give a record without provenance the import that brought it in: file, line and run."""
    if not isinstance(record, Dialogue | Judgment) or record.provenance is not None:
        return record
    origin = Provenance(
        run_id=run.id, config_hash=run.config_hash, source_file=str(path), source_line=line
    )
    return record.model_copy(update={"provenance": origin})


def import_file(
    store: RunStore,
    path: str | Path,
    options: ImportOptions | None = None,
    on_conflict: OnConflict = "error",
    check: Callable[[Path, Loaded], None] | None = None,
    progress: StepProgress | None = None,
) -> ImportResult:
    """Import one file; a bad file raises before anything is written, naming file and line.
    `check` looks at the records (with their lines) a batch at a time first, and raises what it
    refuses."""
    path = Path(path)
    stored_by = store if on_conflict == "error" else None
    checked = check_file(
        path, options or ImportOptions(), store=stored_by, check=check, progress=progress
    )
    options = checked.options
    config = {
        "file": str(path),
        "sha256": file_sha256(path) if path.is_file() else None,
        "options": options.model_dump(mode="json"),
        "on_conflict": on_conflict,
        "redacted": checked.redacted and checked.redacted.model_dump(),
    }
    to_store = checked.read - len(checked.repeats.dropped)
    counts = Counter[str]()
    with store.invocation("import", config) as run:
        problems = Problems()
        kept = checked.repeats.kept(_records(path, options, problems))
        for batch in _batches(kept):
            traced = [_traced(record, run, path, line) for line, record in batch]
            counts.update(store.add(traced, run, on_conflict).model_dump())
            if progress is not None:
                progress("storing", counts.total(), to_store)
        if problems.errors or counts.total() != to_store:
            raise InputError(path, "changed while it was imported: import it again")
    return ImportResult(
        file=str(path),
        format=str(options.format),
        records=options.records,
        read=checked.read,
        repeats=checked.repeats.repeats,
        prefixes=checked.repeats.prefixes,
        redacted=checked.redacted,
        passed_over=checked.passed_over,
        added=counts["added"],
        unchanged=counts["unchanged"],
        replaced=counts["replaced"],
        run_id=run.id,
    )
