"""Langfuse exports: traces with their observations, as JSON or JSON Lines.

Read are the UI's "Download JSON" of a trace (`{"trace": {...}, "observations": [...]}`) and of a
session (`{"id", "traces": [...]}`), the public API's trace with its observations (`{"id",
"sessionId", "input", "output", "observations": [...]}`, also what the traces table exports,
then without observations), and observation rows on their own (the observations table, or the
blob storage export's enriched `observations_v2`, in camelCase or snake_case). GENERATION
observations are model calls (their input and output messages), TOOL observations tool turns,
RETRIEVER observations retrieval turns; SPAN, AGENT, EVENT and the rest are structure only.

A session (`sessionId`) is a conversation, its traces its exchanges in time order; a trace with
no session is a dialogue by itself, yielded as soon as its record is read.

Held in memory: the messages of the sessions still open, and the observation rows of the traces
still open. A session is complete once no trace of it came for `QUIET_RECORDS` records (10,000
lines; `conversation.Trails`), a trace pieced from rows once no row of it came for as many; each
is given out then, or when the file ends. A trace whose own input and output are the exchange
(as a chat app sets them) holds only what is new, so a session that goes on after it was given
out is split in two: a second dialogue that starts mid-conversation, both kept. Where its own
input and output are not a chat, its GENERATIONs' history repeats the whole conversation, and
the import's prefix dedupe keeps the longer one.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dialbench.errors import InputError
from dialbench.io.chat_messages import ToolKind, Where, as_text
from dialbench.io.conversation import Trails, Window
from dialbench.io.file_format import FileFormat, Item, ReadRequest
from dialbench.io.json_records import leading_keys, read_json_records
from dialbench.io.trace_exports import TracedExchange, documents_text, seconds, tool_use

NAME = "langfuse"
TOOL_KINDS: dict[str, ToolKind] = {"TOOL": "function", "RETRIEVER": "retrieval"}


def _get(record: dict[str, Any], camel: str) -> Any:
    """A field by its camelCase name, or the snake_case one blob exports write."""
    snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in camel)
    return record.get(camel, record.get(snake))


@dataclass
class _Trace:
    trace: dict[str, Any]
    observations: list[Any]
    where: Where
    observed: Where

    def session(self) -> str | None:
        session = _get(self.trace, "sessionId")
        return str(session) if session not in (None, "") else None


def _traces(record: dict[str, Any], where: Where) -> Iterator[_Trace]:
    if isinstance(record.get("traces"), list):
        session = record.get("id")
        for index, trace in enumerate(record["traces"]):
            at = where / "traces" / index
            if not isinstance(trace, dict):
                raise at.error(f"expected a trace object, got {type(trace).__name__}")
            trace.setdefault("sessionId", session)
            yield _Trace(trace, trace.get("observations") or [], at, at / "observations")
    elif isinstance(record.get("trace"), dict):
        observations = record.get("observations") or []
        yield _Trace(record["trace"], observations, where / "trace", where / "observations")
    else:
        yield _Trace(record, record.get("observations") or [], where, where / "observations")


def _exchange(trace: _Trace) -> TracedExchange:
    trace_id = trace.trace.get("id")
    if not isinstance(trace_id, str | int):
        raise (trace.where / "id").error("a trace with no id")
    exchange = TracedExchange(str(trace_id))
    if not isinstance(trace.observations, list):
        raise trace.observed.error("expected a list of observations")
    starts = []
    for index, observation in enumerate(trace.observations):
        at = trace.observed / index
        kind = _get(observation, "type") if isinstance(observation, dict) else None
        if not isinstance(kind, str):
            raise (at / "type").error("an observation with no type")
        start = seconds(_get(observation, "startTime"))
        starts.append(start or 0.0)
        asked, answered = observation.get("input"), observation.get("output")
        if kind.upper() == "GENERATION":
            model = observation.get("model") or _get(observation, "providedModelName")
            exchange.add_call(asked, answered, at, start, model)
        elif kind.upper() in TOOL_KINDS:
            retrieval = kind.upper() == "RETRIEVER"
            result = (
                None if answered is None else (documents_text if retrieval else as_text)(answered)
            )
            name = str(observation.get("name") or kind.lower())
            exchange.uses.append(
                tool_use(name, TOOL_KINDS[kind.upper()], asked, result, at, at=start)
            )
    began = seconds(trace.trace.get("timestamp"))
    last = max(starts, default=None) or began
    exchange.set_own(trace.trace.get("input"), trace.trace.get("output"), trace.where, began, last)
    return exchange


def _is_observation_row(record: dict[str, Any]) -> bool:
    return "observations" not in record and bool(_get(record, "traceId")) and "type" in record


@dataclass
class _Rows:
    """The observation rows of one trace (each once: exports overlap), and its session once
    a row names it."""

    line: int | None
    session: str | None = None
    rows: list[Any] = field(default_factory=list)


class _Log:
    """Sessions, and traces pieced from observation rows, open until no record of them has
    come for QUIET_RECORDS records."""

    def __init__(self, path: Path, request: ReadRequest) -> None:
        self.path, self.request = path, request
        self.sessions = Trails(str(path), request, NAME)
        self.rows: Window[_Rows] = Window()

    def add(
        self, exchange: TracedExchange, session: str | None, line: int | None, now: int
    ) -> None:
        """A complete trace's exchange, read at record `now`."""
        if session is not None:
            self.sessions.touch(session, now)
        exchange.join(self.sessions.trail(session, exchange.trace_id, line, now))

    def add_row(self, line: int | None, row: dict[str, Any], now: int) -> None:
        trace = self.rows.touch(str(_get(row, "traceId")), now, lambda: _Rows(line))
        session = _get(row, "sessionId")
        trace.session = trace.session or (str(session) if session else None)
        if trace.session is not None:
            self.sessions.touch(trace.session, now)
        known = row.get("id")
        if known is None or all(r.get("id") != known for r in trace.rows):
            trace.rows.append(row)

    def _pieced(self, traces: list[tuple[str, _Rows]], now: int) -> Iterator[Item]:
        for trace_id, rows in traces:
            where = Where(str(self.path), rows.line, "")
            trace = _Trace({"id": trace_id, "sessionId": rows.session}, rows.rows, where, where)
            try:
                exchange = _exchange(trace)
            except InputError as bad:
                yield rows.line, bad
                continue
            exchange.join(self.sessions.trail(rows.session, trace_id, rows.line, now))

    def given_out(self, now: int) -> Iterator[Item]:
        """What record `now` completed: traces and sessions quiet since, lone traces."""
        yield from self._pieced(self.rows.quiet(now), now)
        yield from self.sessions.given_out(now)

    def rest(self, now: int) -> Iterator[Item]:
        yield from self._pieced(self.rows.rest(), now)
        yield from self.sessions.rest()


def read_langfuse(path: Path, request: ReadRequest) -> Iterator[Item]:
    log = _Log(path, request)
    now = 0
    for now, (line, record) in enumerate(read_json_records(path)):
        if isinstance(record, InputError):
            yield line, record
            continue
        if _is_observation_row(record):
            log.add_row(line, record, now)
        else:
            try:
                for trace in _traces(record, Where(str(path), line, "")):
                    log.add(_exchange(trace), trace.session(), line, now)
            except InputError as bad:
                yield line, bad
        yield from log.given_out(now)
    yield from log.rest(now)


def _recognises(path: Path) -> bool:
    keys = leading_keys(path)
    rows = {"traceId", "type", "startTime"} <= keys or {"trace_id", "type", "start_time"} <= keys
    traces = "observations" in keys or {"sessionId", "input", "output"} <= keys
    return traces or {"id", "traces"} <= keys or rows


LANGFUSE = FileFormat(
    NAME,
    "Langfuse traces with their observations (JSON, JSON Lines)",
    holds=("dialogues",),
    read=read_langfuse,
    suffixes=(".json", ".jsonl", ".ndjson"),
    recognises_content=_recognises,
    personal_data=True,
)
