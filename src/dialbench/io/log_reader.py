"""One driver for the readers of production traffic: chat-completions call logs and the exports
of tracing tools (OpenTelemetry, Langfuse, LangSmith).

Every such reader reads a file record by record, turns each record into what it holds, groups
that into conversations held open until they are complete, and yields their dialogues as soon as
they are; a problem names its file, line and field and does not stop the reading. All of that is
here, once. A format is a `LogReader`: the one part that is its own, which turns a record into
events, and, where a trace's pieces come on many records, the exchange its pieces make:

- `LoggedCall`: one model call's messages, and the conversation it names (a chat log's line);
- `Piece`: one share of a trace that may come on any later record (a span, a run, an observation
  row), held by its trace id until no piece of it came for QUIET_RECORDS events;
- `Whole`: a trace read whole from one record, its exchange made already;
- `PassedOver`: what a record holds that is no conversation's, counted.

Each event ticks the clock by which a trace or a conversation counts as quiet. The same file is
refused the same way by every format: one holding no records, and one whose first record another
format recognises (with the --format that reads it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import JsonValue

from dialbench.errors import InputError
from dialbench.io.chat_messages import LoggedMessage, Where
from dialbench.io.conversation import Conversations, Trails, Window, dialogue_item
from dialbench.io.file_format import FileFormat, Item, ReadRequest
from dialbench.io.json_records import leading_keys, read_json_records
from dialbench.io.registry import formats_recognising
from dialbench.io.trace_exports import TracedExchange

P = TypeVar("P")


@dataclass(frozen=True)
class LoggedCall:
    """One logged model call: its messages, what names its conversation (None: the call is a
    dialogue by itself), and what to keep about it when it is."""

    conversation: str | None
    messages: list[LoggedMessage]
    about: dict[str, JsonValue] = field(default_factory=dict)


@dataclass(frozen=True)
class Piece(Generic[P]):
    """One share of a trace: the format's own value, what tells it from a copy of it in an export
    sent again (None: nothing does, it is always kept), and the conversations it names, the
    first preferred. A piece that names no trace (None) belongs to the trace of the piece read
    before it: OpenLLMetry logs a streamed reply after its span has ended, out of its context."""

    trace_id: str | None
    value: P
    identity: str | None
    names: tuple[str | None, ...] = ()


@dataclass(frozen=True)
class Whole:
    """A trace read whole from one record: the conversation it belongs to, and its exchange."""

    conversation: str | None
    exchange: TracedExchange


@dataclass(frozen=True)
class PassedOver:
    """Something a record holds that is no conversation's (an OTLP file's metrics), counted
    by what it is: the import says so."""

    what: str


Event = LoggedCall | Piece[P] | Whole | PassedOver


@dataclass
class OpenTrace(Generic[P]):
    """A trace whose pieces are still coming: where its first piece was read, its pieces (each
    once), and for each rank of name the first conversation a piece named."""

    where: Where
    pieces: list[P] = field(default_factory=list)
    identities: set[str] = field(default_factory=set)
    names: list[str | None] = field(default_factory=list)

    def add(self, piece: Piece[P]) -> None:
        if piece.identity is not None:
            if piece.identity in self.identities:
                return
            self.identities.add(piece.identity)
        self.pieces.append(piece.value)
        for rank, name in enumerate(piece.names):
            if rank == len(self.names):
                self.names.append(name)
            elif self.names[rank] is None:
                self.names[rank] = name

    @property
    def conversation(self) -> str | None:
        return next((name for name in self.names if name is not None), None)


def _no_pieces(trace_id: str, trace: OpenTrace[Any]) -> TracedExchange | None:
    raise AssertionError(f"a format with no exchange of pieces read a piece of {trace_id}")


class _Open(Generic[P]):
    """What one reading holds open: a chat log's conversations, the traces whose pieces are
    still coming, and the conversations traces make."""

    def __init__(self, reader: LogReader[P], path: Path, request: ReadRequest) -> None:
        self.reader, self.path, self.request = reader, path, request
        self.conversations = Conversations(str(path), request, reader.name)
        self.traces: Window[OpenTrace[P]] = Window()
        self.trails = Trails(str(path), request, reader.name)
        self.done: list[Item] = []
        self.now = 0
        self.last_trace: str | None = None

    def add(self, event: Event[P], where: Where) -> None:
        """Add one event of the record at `where`; what it completed waits in `done`."""
        self.now += 1
        if isinstance(event, PassedOver):
            self.request.passed_over[event.what] += 1
        elif isinstance(event, LoggedCall):
            self._add_call(event, where.line)
        elif isinstance(event, Piece):
            self.last_trace = event.trace_id or self.last_trace or f"{where.line} {where.field}"
            trace = self.traces.touch(self.last_trace, self.now, lambda: OpenTrace(where))
            trace.add(event)
            if trace.conversation is not None:
                self.trails.touch(trace.conversation, self.now)
        else:
            if event.conversation is not None:
                self.trails.touch(event.conversation, self.now)
            self._join(event.exchange, event.conversation, where.line)

    def _add_call(self, call: LoggedCall, line: int | None) -> None:
        if call.conversation is None:
            name = self.reader.name
            item = dialogue_item(
                str(self.path), line, call.messages, self.request, name, call.about
            )
            self.done.append(item)
        else:
            added = self.conversations.add(call.conversation, line, call.messages, self.now)
            self.done.extend(added)

    def _join(self, exchange: TracedExchange, conversation: str | None, line: int | None) -> None:
        """Add a complete trace's exchange to its conversation (or to a dialogue of its own)."""
        exchange.join(self.trails.trail(conversation, exchange.trace_id, line, self.now))

    def _complete(self, traces: list[tuple[str, OpenTrace[P]]]) -> Iterator[Item]:
        """Add each complete trace's exchange to its conversation; yields the problems."""
        for trace_id, trace in traces:
            line = trace.where.line
            try:
                exchange = self.reader.exchange(trace_id, trace)
            except InputError as bad:
                yield line, bad
                continue
            if exchange is not None:
                self._join(exchange, trace.conversation, line)

    def given_out(self) -> Iterator[Item]:
        """What the events so far completed: lone calls, conversations a call ended, quiet
        traces and conversations."""
        done, self.done = self.done, []
        yield from done
        yield from self._complete(self.traces.quiet(self.now))
        yield from self.trails.given_out(self.now)

    def rest(self) -> Iterator[Item]:
        yield from self.conversations.rest()
        yield from self._complete(self.traces.rest())
        yield from self.trails.rest()


@dataclass(frozen=True)
class LogReader(Generic[P]):
    """One format of production traffic, as far as it is its own: `events` turns one record
    (located at a Where) into events, raising the InputError of what does not fit;
    `exchange` makes a complete trace's exchange of its pieces (None: it holds no conversation);
    `recognises` tells its files by their first record's keys; `nothing_read` says why a file
    of records that yield nothing holds no dialogue (or tells it, from the file: what the
    writer of the file should have been asked to record). Records are JSON Lines, or one JSON
    document (an object, or an array of them: `json_records.read_json_records`)."""

    name: str
    description: str
    events: Callable[[dict[str, Any], Where], Iterable[Event[P]]]
    recognises: Callable[[frozenset[str]], bool]
    exchange: Callable[[str, OpenTrace[P]], TracedExchange | None] = _no_pieces
    nothing_read: str | Callable[[Path], str] = (
        "no conversation in this file's records: nothing to import"
    )

    def read(self, path: Path, request: ReadRequest) -> Iterator[Item]:
        """Each dialogue (or the problem with it) as soon as it is complete."""
        self._check_format(path)
        nothing = True
        for item in self._dialogues(path, request):
            nothing = False
            yield item
        if nothing:
            reason = self.nothing_read
            raise InputError(path, reason if isinstance(reason, str) else reason(path))

    def _dialogues(self, path: Path, request: ReadRequest) -> Iterator[Item]:
        held = _Open(self, path, request)
        for line, record in read_json_records(path):
            if isinstance(record, InputError):
                yield line, record
                continue
            where = Where(str(path), line, "")
            try:
                for event in self.events(record, where):
                    held.add(event, where)
            except InputError as bad:
                yield line, bad
            yield from held.given_out()
        yield from held.rest()

    def _check_format(self, path: Path) -> None:
        """Refuse a file whose first record this format does not recognise and another does."""
        keys = leading_keys(path)
        if not keys or self.recognises(keys):
            return
        others = [f for f in formats_recognising(path, "dialogues") if f.name != self.name]
        if others:
            other = others[0]
            raise InputError(
                path,
                f"not a {self.name} file but, by its first record, {other.description}: "
                f"pass --format {other.name}",
            )

    def recognises_file(self, path: Path) -> bool:
        return self.recognises(leading_keys(path))

    def file_format(self) -> FileFormat:
        """The format, for the table of formats (`io/registry.py`)."""
        return FileFormat(
            self.name,
            self.description,
            holds=("dialogues",),
            read=self.read,
            suffixes=(".jsonl", ".ndjson", ".json"),
            recognises_content=self.recognises_file,
            personal_data=True,
        )
