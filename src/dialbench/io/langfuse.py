"""Langfuse exports: traces with their observations, as JSON or JSON Lines.

Read are the UI's "Download JSON" of a trace (`{"trace": {...}, "observations": [...]}`) and of a
session (`{"id", "traces": [...]}`), the public API's trace with its observations (`{"id",
"sessionId", "input", "output", "observations": [...]}`, also what the traces table exports,
then without observations), and observation rows on their own (the observations table, or the
blob storage export's enriched `observations_v2`, in camelCase or snake_case). GENERATION
observations are model calls (their input and output messages), TOOL observations tool turns,
RETRIEVER observations retrieval turns; SPAN, AGENT, EVENT and the rest are structure only.

A session (`sessionId`) is a conversation, its traces its exchanges in time order; a trace with
no session is a dialogue by itself, yielded as soon as its record is read. Sessions, and
observation rows whose traces may go on in a later line, stay in memory until the file ends.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dialbench.errors import InputError
from dialbench.io.chat_messages import ToolKind, Where, as_text
from dialbench.io.conversation import Trail, trail_for
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


class _Log:
    """Sessions, and traces pieced from observation rows, open until the file ends."""

    def __init__(self, path: Path, request: ReadRequest) -> None:
        self.path, self.request = path, request
        self.sessions: dict[str, Trail] = {}
        self.rows: dict[str, tuple[int | None, str | None, list[Any]]] = {}

    def add(self, exchange: TracedExchange, session: str | None, line: int | None) -> Item | None:
        """A trace's exchange; returns the dialogue of a trace that has no session."""
        if session is not None:
            exchange.join(trail_for(self.sessions, session, exchange.trace_id, line))
            return None
        trail = Trail(line, trace_ids=[exchange.trace_id])
        exchange.join(trail)
        return trail.item(str(self.path), self.request, NAME)

    def add_row(self, line: int | None, row: dict[str, Any]) -> None:
        trace_id = str(_get(row, "traceId"))
        session = _get(row, "sessionId")
        first, known, rows = self.rows.setdefault(trace_id, (line, None, []))
        self.rows[trace_id] = (first, known or (str(session) if session else None), rows)
        rows.append(row)

    def rest(self) -> Iterator[Item]:
        for trace_id, (line, session, rows) in self.rows.items():
            where = Where(str(self.path), line, "")
            trace = _Trace({"id": trace_id, "sessionId": session}, rows, where, where)
            try:
                done = self.add(_exchange(trace), session, line)
            except InputError as bad:
                yield line, bad
                continue
            if done is not None:
                yield done
        for trail in self.sessions.values():
            yield trail.item(str(self.path), self.request, NAME)


def read_langfuse(path: Path, request: ReadRequest) -> Iterator[Item]:
    log = _Log(path, request)
    for line, record in read_json_records(path):
        if isinstance(record, InputError):
            yield line, record
            continue
        if _is_observation_row(record):
            log.add_row(line, record)
            continue
        try:
            for trace in _traces(record, Where(str(path), line, "")):
                done = log.add(_exchange(trace), trace.session(), line)
                if done is not None:
                    yield done
        except InputError as bad:
            yield line, bad
    yield from log.rest()


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
