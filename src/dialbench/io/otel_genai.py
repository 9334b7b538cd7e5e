"""OpenTelemetry GenAI telemetry as OTLP JSON: spans (`{"resourceSpans": [...]}`) and log records
(`{"resourceLogs": [...]}`), one document per file or one per line (the Collector's file
exporter, which in several pipelines writes both into one file; its metrics are passed over).

Read are the conventions of `genai_messages.py`: the GenAI semantic conventions v1.37 to v1.41
(a chat span's `gen_ai.input.messages` / `gen_ai.output.messages`, `execute_tool` spans with
`gen_ai.tool.name`, `gen_ai.tool.call.id`, `.arguments`, `.result`, a `datastore` tool being a
retrieval, and `retrieval` spans) and the events before them; OpenLLMetry's; OpenInference's
(`llm.*_messages`, TOOL and RETRIEVER spans); and the Langfuse SDK's (`langfuse.observation.*`:
generations, tool and retriever observations). Messages recorded as log records (events: the
OpenTelemetry instrumentation's `event_only`, OpenLLMetry's `use_attributes=False`) are their
span's, joined by span id when the trace is complete; a record that names no span joins the call
of the record before it, and one that names no trace the trace of the record before it
(`log_reader.Piece`).

A trace belongs to the conversation its spans name by `gen_ai.conversation.id`, else by
`session.id`, else it is one by itself. A conversation's chat spans, in the order they began,
repeat its history: it is the longest history they agree on (`conversation.merged`); an
`invoke_agent` span's messages count only in a trace without chat spans.

Held in memory: the messages of the traces and conversations still open (not the raw JSON).
Spans of one trace may come in any later document, so a trace is complete once no span of it
came for `QUIET_RECORDS` spans (10,000; `conversation.Window`), and a conversation once no span
of a trace that names it came for as many (`conversation.Trails`); each is given out then, or
when the file ends. A trace that goes on with a conversation given out comes out on its own,
as a dialogue of its chat spans' history, which repeats the whole conversation: the import's
prefix dedupe keeps it and drops the earlier one. Not where the earlier one had retrieval
spans, whose context no history repeats: then both are kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any

from pydantic import JsonValue

from dialbench.hashing import content_hash
from dialbench.io import otlp
from dialbench.io.chat_messages import (
    LoggedMessage,
    ToolCall,
    ToolKind,
    Where,
    as_text,
    parsed_arguments,
)
from dialbench.io.genai_messages import (
    LANGFUSE_TYPE,
    call_id,
    current_messages,
    event_messages,
    indexed_messages,
    json_value,
    langfuse_messages,
    langfuse_value_text,
    openinference_messages,
    span_event_messages,
)
from dialbench.io.json_records import read_json_records
from dialbench.io.log_reader import LogReader, OpenTrace, PassedOver, Piece
from dialbench.io.trace_exports import TracedExchange

NAME = "otel-genai"
# The attributes that name a span's conversation, the first preferred.
CONVERSATION_KEYS = ("gen_ai.conversation.id", "session.id")
# The attributes that name the model that answered, the first preferred (OpenInference's and
# the Langfuse SDK's last).
MODEL_KEYS = (
    "gen_ai.response.model",
    "gen_ai.request.model",
    "llm.model_name",
    "langfuse.observation.model.name",
)
AGENT = "invoke_agent"


def _retrieved(documents: Any) -> str:
    if not isinstance(documents, list):
        return as_text(documents)
    texts = [as_text(d.get("content", d)) if isinstance(d, dict) else as_text(d) for d in documents]
    return "\n\n".join(texts)


def _tool_use(
    operation: str | None, span: dict[str, Any], attributes: dict[str, Any], where: Where
) -> ToolCall | None:
    """The call an `execute_tool` or `retrieval` span made, with its result."""
    name = str(span.get("name") or operation)
    if operation == "execute_tool":
        tool = attributes.get("gen_ai.tool.name") or name.removeprefix("execute_tool ")
        kind: ToolKind = (
            "retrieval" if attributes.get("gen_ai.tool.type") == "datastore" else "function"
        )
        result = attributes.get("gen_ai.tool.call.result")
        return ToolCall(
            str(tool),
            parsed_arguments(attributes.get("gen_ai.tool.call.arguments")),
            call_id(attributes.get("gen_ai.tool.call.id")),
            kind,
            None if result is None else as_text(result),
        )
    if operation == "retrieval":
        query = attributes.get("gen_ai.retrieval.query.text")
        documents = json_value(attributes.get("gen_ai.retrieval.documents"), where)
        source = attributes.get("gen_ai.data_source.id") or name
        arguments: JsonValue = {"query": query} if query is not None else None
        return ToolCall(str(source), arguments, None, "retrieval", _retrieved(documents))
    return _other_tool_use(name, attributes)


def _other_tool_use(name: str, attributes: dict[str, Any]) -> ToolCall | None:
    """The call of a tool span of OpenInference (`openinference.span.kind` TOOL: `tool.name`,
    `input.value`, `output.value`; RETRIEVER: `retrieval.documents.N.document.content`) or of
    the Langfuse SDK (an observation of type tool or retriever: its input and output)."""
    kind = attributes.get("openinference.span.kind")
    if kind == "TOOL":
        result = attributes.get("output.value")
        return ToolCall(
            str(attributes.get("tool.name") or name),
            parsed_arguments(attributes.get("input.value")),
            call_id(attributes.get("tool_call.id")),
            "function",
            None if result is None else as_text(result),
        )
    if kind == "RETRIEVER":
        found = otlp.nested(attributes, "retrieval.documents.")
        documents = [d.get("document") for d in found if isinstance(d, dict)]
        query = attributes.get("input.value")
        return ToolCall(name, {"query": query}, None, "retrieval", _retrieved(documents))
    observed = attributes.get(LANGFUSE_TYPE)
    if observed in {"tool", "retriever"}:
        return ToolCall(
            name,
            parsed_arguments(langfuse_value_text(attributes, "input")),
            None,
            "retrieval" if observed == "retriever" else "function",
            langfuse_value_text(attributes, "output"),
        )
    return None


@dataclass
class _Span:
    """A span's share of its trace, or a log record's: a log record's messages belong to the
    span it names (its model call), joined to it when the trace is complete."""

    operation: str | None
    messages: list[LoggedMessage]
    use: LoggedMessage | None
    span_id: str | None = None
    model: str | None = None
    logged: bool = False


def _names(attributes: dict[str, Any]) -> tuple[str | None, ...]:
    return tuple(
        str(attributes[key]) if attributes.get(key) not in (None, "") else None
        for key in CONVERSATION_KEYS
    )


def _model(attributes: dict[str, Any]) -> str | None:
    model = next((attributes[key] for key in MODEL_KEYS if attributes.get(key)), None)
    return model if isinstance(model, str) else None


def _span(span: Any, resource: dict[str, Any], where: Where) -> Piece[_Span]:
    """A span as a piece of its trace (each once, by its span id), naming its conversation."""
    if not isinstance(span, dict):
        raise where.error(f"expected a span object, got {type(span).__name__}")
    trace_id = span.get("traceId")
    if not isinstance(trace_id, str) or not trace_id:
        raise (where / "traceId").error("a span without a trace id")
    attributes = resource | otlp.attributes(span.get("attributes"), where / "attributes")
    operation = attributes.get("gen_ai.operation.name")
    model = _model(attributes)
    at = where / "attributes"
    messages = (
        current_messages(attributes, at, model)
        or indexed_messages(attributes, at, model)
        or openinference_messages(attributes, at, model)
        or langfuse_messages(attributes, at, model)
        or span_event_messages(span.get("events"), where / "events", model)
    )
    start = otlp.nanos(span.get("startTimeUnixNano"))
    for message in messages:
        message.at = start
    call = _tool_use(operation, span, attributes, at)
    use = (
        None if call is None else LoggedMessage("tool", call.result or "", where, [call], at=start)
    )
    span_id = span.get("spanId") if isinstance(span.get("spanId"), str) else None
    value = _Span(operation, messages, use, span_id, model)
    return Piece(trace_id, value, span_id, _names(attributes))


def _log_record(record: Any, resource: dict[str, Any], where: Where) -> Piece[_Span]:
    """A log record (an event: `eventName`, or the older `event.name` attribute; its body
    holds the message where attributes do not) as a piece of the trace it names (none: the
    trace of the piece before it), told from a copy in an export sent again by its content."""
    if not isinstance(record, dict):
        raise where.error(f"expected a log record object, got {type(record).__name__}")
    attributes = resource | otlp.attributes(record.get("attributes"), where / "attributes")
    body = otlp.any_value(record.get("body"))
    fields = attributes | (body if isinstance(body, dict) else {})
    if body is not None and not isinstance(body, dict):
        fields.setdefault("content", body)
    name = record.get("eventName") or attributes.get("event.name")
    model = _model(attributes)
    messages = event_messages(name, fields, where, model)
    at = otlp.nanos(record.get("timeUnixNano")) or otlp.nanos(record.get("observedTimeUnixNano"))
    for message in messages:
        message.at = at
    trace_id = record.get("traceId") or None
    span_id = record.get("spanId") or None
    value = _Span(None, messages, None, span_id, model, logged=True)
    return Piece(
        trace_id and str(trace_id), value, f"log {content_hash(record)}", _names(attributes)
    )


def _pieces(record: dict[str, Any], where: Where) -> Iterator[Piece[_Span] | PassedOver]:
    """A record's spans and log records: a Collector's file exporter in several pipelines
    writes traces and logs into one file, a record of each at a time; its metrics and
    profiles hold no conversation and are passed over, counted."""
    if not any(key in record for key in otlp.SIGNALS):
        raise (where / "resourceSpans").error(
            "not OTLP JSON: no list of resourceSpans or resourceLogs"
        )
    for span, resource, at in otlp.signals(record, where, "resourceSpans"):
        yield _span(span, _shared(resource), at)
    for log, resource, at in otlp.signals(record, where, "resourceLogs"):
        yield _log_record(log, _shared(resource), at)
    for signal, what in otlp.OTHER_SIGNALS.items():
        if signal in record:
            yield PassedOver(what)


def _shared(resource: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in resource.items() if k in CONVERSATION_KEYS}


def _joined(pieces: list[_Span]) -> list[_Span]:
    """The spans, each with the messages of the log records that name it where it holds none
    itself (content recorded as events), in the order they were written; log records whose
    span is not in the file make a call of their own, by span, and one that names no span
    joins the call of the log record before it. A call's messages all count as said when its
    first was."""
    spans = {piece.span_id: piece for piece in pieces if not piece.logged and piece.span_id}
    joined = [piece for piece in pieces if not piece.logged]
    own = {id(span) for span in joined if span.messages}
    alone: dict[str, _Span] = {}
    previous: str | None = None
    for index, piece in enumerate(p for p in pieces if p.logged):
        previous = piece.span_id or previous
        span = spans.get(previous) if previous else None
        if span is None:
            key = previous or f"record {index}"
            if key not in alone:
                alone[key] = _Span(None, [], None, previous)
                joined.append(alone[key])
            span = alone[key]
        if id(span) not in own:
            span.messages.extend(piece.messages)
            span.model = span.model or piece.model
    for span in joined:
        start = min((m.at for m in span.messages if m.at is not None), default=None)
        for message in span.messages:
            message.at = start
            if message.role == "assistant":
                message.model = message.model or span.model
    return joined


def _exchange(trace_id: str, trace: OpenTrace[_Span]) -> TracedExchange | None:
    """A complete trace's chat spans' messages (an agent span's only where it has none) and its
    tool uses; None for a trace with no GenAI content (HTTP, database spans beside them)."""
    spans = _joined(trace.pieces)
    chats = [s.messages for s in spans if s.messages and s.operation != AGENT]
    calls = chats or [s.messages for s in spans if s.messages]
    uses = [s.use for s in spans if s.use is not None]
    if not (calls or uses):
        return None
    return TracedExchange(trace_id, calls=calls, uses=uses)


# What makes each instrumentation record messages, by the start of the scope name it writes.
CONTENT_SETTINGS = {
    "opentelemetry.instrumentation.openai_v2": (
        "the OpenTelemetry OpenAI instrumentation records them with "
        "OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental and "
        "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=span_only (event_only writes them "
        "as log records: export those into this file too)"
    ),
    "opentelemetry.instrumentation.openai.": (
        "OpenLLMetry records them unless TRACELOOP_TRACE_CONTENT=false (with "
        "use_attributes=False as log records: export those into this file too)"
    ),
    "openinference.instrumentation": (
        "OpenInference records them unless OPENINFERENCE_HIDE_INPUTS, "
        "OPENINFERENCE_HIDE_OUTPUTS or OPENINFERENCE_HIDE_INPUT_MESSAGES / _OUTPUT_MESSAGES "
        "is true"
    ),
    "langfuse-sdk": "the Langfuse SDK records them unless a mask or a filter removes them",
}
GENERAL_CONTENT_SETTING = CONTENT_SETTINGS["opentelemetry.instrumentation.openai_v2"]
SCANNED_RECORDS = 100


def _scopes(path: Path) -> set[str]:
    """The instrumentation scopes that wrote a file's first records."""
    records = islice(read_json_records(path), SCANNED_RECORDS)
    return {name for _, record in records for name in otlp.scope_names(record)}


def _no_content(path: Path) -> str:
    """Why no span of the file held messages, and the setting of the library that wrote it."""
    scopes = _scopes(path)
    settings = [
        setting
        for start, setting in CONTENT_SETTINGS.items()
        if any(scope.startswith(start) for scope in scopes)
    ]
    return "no GenAI span or log record in this file holds messages: " + "; ".join(
        settings or [GENERAL_CONTENT_SETTING]
    )


OTEL_GENAI = LogReader(
    NAME,
    "OpenTelemetry GenAI spans and log records (OTLP JSON)",
    _pieces,
    lambda keys: bool(keys & otlp.SIGNALS),
    exchange=_exchange,
    nothing_read=_no_content,
).file_format()
