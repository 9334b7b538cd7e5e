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
from dataclasses import dataclass
from typing import Any

from dialbench.io.chat_messages import ToolKind, Where, as_text
from dialbench.io.log_reader import LogReader, OpenTrace, Piece, Whole
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


def _events(record: dict[str, Any], where: Where) -> Iterator[Piece[Any] | Whole]:
    """An observation row is a piece of its trace (each once, by its id: exports overlap); a
    trace, or a session of them, is read whole."""
    if _is_observation_row(record):
        session, known = _get(record, "sessionId"), record.get("id")
        yield Piece(
            str(_get(record, "traceId")),
            record,
            None if known is None else str(known),
            (str(session) if session else None,),
        )
    else:
        for trace in _traces(record, where):
            yield Whole(trace.session(), _exchange(trace))


def _pieced(trace_id: str, rows: OpenTrace[Any]) -> TracedExchange:
    """The exchange of a trace pieced from its observation rows."""
    where = rows.where
    return _exchange(_Trace({"id": trace_id}, rows.pieces, where, where))


def _recognises(keys: frozenset[str]) -> bool:
    rows = {"traceId", "type", "startTime"} <= keys or {"trace_id", "type", "start_time"} <= keys
    traces = "observations" in keys or {"sessionId", "input", "output"} <= keys
    return traces or {"id", "traces"} <= keys or rows


LANGFUSE = LogReader(
    NAME,
    "Langfuse traces with their observations (JSON, JSON Lines)",
    _events,
    _recognises,
    exchange=_pieced,
).file_format()
