"""OpenTelemetry GenAI spans as OTLP JSON: `{"resourceSpans": [{"resource", "scopeSpans":
[{"spans": [...]}]}]}`, one document per file or one per line (the collector's file exporter).

Read are the GenAI semantic conventions v1.37 to v1.41 (development status): a chat span's
`gen_ai.input.messages` / `gen_ai.output.messages` (parts: text, tool_call, tool_call_response;
others counted) and `gen_ai.system_instructions`; `execute_tool` spans (`gen_ai.tool.name`,
`gen_ai.tool.call.id`, `.arguments`, `.result`; a `datastore` tool is a retrieval) and
`retrieval` spans (`gen_ai.retrieval.query.text`, `gen_ai.retrieval.documents`). And what came
before them: v1.28 to v1.36's span events (`gen_ai.system.message`, `gen_ai.user.message`,
`gen_ai.assistant.message`, `gen_ai.tool.message`, `gen_ai.choice`), the earlier
`gen_ai.content.prompt` / `gen_ai.content.completion` events, and the indexed attributes
`gen_ai.prompt.N.*` / `gen_ai.completion.N.*` that OpenLLMetry still writes.

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

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import JsonValue

from dialbench.io import otlp
from dialbench.io.chat_messages import (
    LoggedMessage,
    ToolCall,
    ToolKind,
    Where,
    as_text,
    openai_message,
    openai_messages,
    parsed_arguments,
)
from dialbench.io.log_reader import LogReader, OpenTrace, Piece
from dialbench.io.trace_exports import TracedExchange

NAME = "otel-genai"
# The attributes that name a span's conversation, the first preferred.
CONVERSATION_KEYS = ("gen_ai.conversation.id", "session.id")
AGENT = "invoke_agent"
_EVENT_ROLES = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}


def _json(value: Any, where: Where) -> Any:
    """A value recorded as a JSON string on spans, structured on events."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except json.JSONDecodeError as bad:
        raise where.error(f"not valid JSON ({bad.msg})") from None


def _call_id(value: Any) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


def _part_message(raw: Any, where: Where, model: str | None) -> list[LoggedMessage]:
    """One message of `gen_ai.input.messages` / `gen_ai.output.messages` (v1.37+): its parts'
    text, tool calls and tool results; other parts (blobs, files, reasoning) are counted."""
    if not isinstance(raw, dict):
        raise where.error(f"expected a message object, got {type(raw).__name__}")
    role = raw.get("role")
    if not isinstance(role, str):
        raise (where / "role").error("a message has no role")
    texts, calls, results, others = [], [], [], Counter[str]()
    for index, part in enumerate(raw.get("parts") or []):
        at = where / "parts" / index
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text":
            texts.append(as_text(part.get("content")))
        elif kind == "tool_call":
            if not part.get("name"):
                raise (at / "name").error("a tool call has no name")
            arguments = parsed_arguments(part.get("arguments"))
            calls.append(ToolCall(str(part["name"]), arguments, _call_id(part.get("id"))))
        elif kind == "tool_call_response":
            result = as_text(part.get("response", part.get("result")))
            results.append(LoggedMessage("tool", result, at, answers=_call_id(part.get("id"))))
        else:
            others[str(kind)] += 1
    text = "\n".join(texts)
    if role == "system":
        return [LoggedMessage("system", text, where)]
    if role == "assistant":
        said = LoggedMessage("assistant", text, where, calls, model=model, non_text_parts=others)
        return [said, *results]
    if role == "user":
        asked = (
            [LoggedMessage("user", text, where, non_text_parts=others)]
            if texts or not results
            else []
        )
        return [*asked, *results]
    if role == "tool":
        return results or [LoggedMessage("tool", text, where, name=raw.get("name"))]
    raise (where / "role").error(f"unknown role {role!r}")


def _part_messages(value: Any, where: Where, model: str | None = None) -> list[LoggedMessage]:
    messages = _json(value, where)
    if not isinstance(messages, list):
        raise where.error(f"expected a list of messages, got {type(messages).__name__}")
    return [
        m for index, raw in enumerate(messages) for m in _part_message(raw, where / index, model)
    ]


def _instructions(value: Any, where: Where) -> list[LoggedMessage]:
    parts = _json(value, where)
    parts = parts if isinstance(parts, list) else [parts]
    texts = [as_text(p.get("content")) if isinstance(p, dict) else as_text(p) for p in parts]
    return [LoggedMessage("system", "\n".join(texts), where)]


def _indexed(attributes: dict[str, Any], prefix: str) -> list[tuple[str, dict[str, Any]]]:
    """OpenLLMetry's `gen_ai.prompt.0.role`, `gen_ai.prompt.0.tool_calls.1.name`, ... as
    chat-completions messages, by index."""
    found: dict[int, dict[str, Any]] = {}
    for key, value in attributes.items():
        rest = key.removeprefix(prefix)
        index, _, name = rest.partition(".")
        if rest == key or not index.isdigit():
            continue
        message = found.setdefault(int(index), {})
        if name.startswith("tool_calls."):
            number, _, detail = name.removeprefix("tool_calls.").partition(".")
            calls = message.setdefault("tool_calls", {})
            call = calls.setdefault(int(number) if number.isdigit() else 0, {"function": {}})
            target = call if detail == "id" else call["function"]
            target[detail] = value
        else:
            message[name] = value
    shaped = []
    for position in sorted(found):
        message = found[position]
        if "tool_calls" in message:
            calls = message["tool_calls"]
            message["tool_calls"] = [calls[n] for n in sorted(calls)]
        shaped.append((f"{prefix}{position}", message))
    return shaped


def _indexed_messages(
    attributes: dict[str, Any], where: Where, model: str | None
) -> list[LoggedMessage]:
    messages = []
    for prefix, default in (("gen_ai.prompt.", "user"), ("gen_ai.completion.", "assistant")):
        for key, raw in _indexed(attributes, prefix):
            raw.setdefault("role", default)
            said = openai_message(raw, where / key, model if default == "assistant" else None)
            messages.append(said)
    return messages


def _event_messages(events: Any, where: Where, model: str | None) -> list[LoggedMessage]:
    """The messages of v1.28 to v1.36's span events, and of the content events before them."""
    messages: list[LoggedMessage] = []
    for index, event in enumerate(events or []):
        at = where / index
        name = event.get("name") if isinstance(event, dict) else None
        attributes = otlp.attributes(event.get("attributes"), at / "attributes") if name else {}
        if name in _EVENT_ROLES:
            raw = {
                "role": _EVENT_ROLES[name],
                "content": attributes.get("content"),
                "tool_calls": _json(attributes.get("tool_calls"), at / "attributes.tool_calls"),
                "tool_call_id": attributes.get("id"),
            }
            messages.append(openai_message(raw, at, model))
        elif name == "gen_ai.choice" and attributes.get("index", 0) == 0:
            choice = _json(attributes.get("message"), at / "attributes.message") or {}
            if not isinstance(choice, dict):
                raise (at / "attributes.message").error("expected a message object")
            messages.append(openai_message({"role": "assistant", **choice}, at, model))
        elif name in {"gen_ai.content.prompt", "gen_ai.content.completion"}:
            key = "gen_ai.prompt" if name == "gen_ai.content.prompt" else "gen_ai.completion"
            field_at = at / f"attributes.{key}"
            messages.extend(openai_messages(_json(attributes.get(key), field_at), field_at))
        elif "gen_ai.input.messages" in attributes or "gen_ai.output.messages" in attributes:
            messages.extend(_current_messages(attributes, at / "attributes", model))
    return messages


def _current_messages(
    attributes: dict[str, Any], where: Where, model: str | None
) -> list[LoggedMessage]:
    messages: list[LoggedMessage] = []
    if "gen_ai.system_instructions" in attributes:
        key = "gen_ai.system_instructions"
        messages.extend(_instructions(attributes[key], where / key))
    for key in ("gen_ai.input.messages", "gen_ai.output.messages"):
        if key in attributes:
            writer = model if key == "gen_ai.output.messages" else None
            messages.extend(_part_messages(attributes[key], where / key, writer))
    return messages


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
            _call_id(attributes.get("gen_ai.tool.call.id")),
            kind,
            None if result is None else as_text(result),
        )
    if operation == "retrieval":
        query = attributes.get("gen_ai.retrieval.query.text")
        documents = _json(attributes.get("gen_ai.retrieval.documents"), where)
        source = attributes.get("gen_ai.data_source.id") or name
        arguments: JsonValue = {"query": query} if query is not None else None
        return ToolCall(str(source), arguments, None, "retrieval", _retrieved(documents))
    return None


@dataclass
class _Span:
    operation: str | None
    messages: list[LoggedMessage]
    use: LoggedMessage | None


def _span(span: Any, resource: dict[str, Any], where: Where) -> Piece[_Span]:
    """A span as a piece of its trace (each once, by its span id), naming its conversation."""
    if not isinstance(span, dict):
        raise where.error(f"expected a span object, got {type(span).__name__}")
    trace_id = span.get("traceId")
    if not isinstance(trace_id, str) or not trace_id:
        raise (where / "traceId").error("a span without a trace id")
    attributes = resource | otlp.attributes(span.get("attributes"), where / "attributes")
    operation = attributes.get("gen_ai.operation.name")
    model = attributes.get("gen_ai.response.model") or attributes.get("gen_ai.request.model")
    model = model if isinstance(model, str) else None
    at = where / "attributes"
    messages = (
        _current_messages(attributes, at, model)
        or _indexed_messages(attributes, at, model)
        or _event_messages(span.get("events"), where / "events", model)
    )
    start = otlp.nanos(span.get("startTimeUnixNano"))
    for message in messages:
        message.at = start
    call = _tool_use(operation, span, attributes, at)
    use = (
        None if call is None else LoggedMessage("tool", call.result or "", where, [call], at=start)
    )
    names = tuple(
        str(attributes[key]) if attributes.get(key) not in (None, "") else None
        for key in CONVERSATION_KEYS
    )
    span_id = span.get("spanId")
    value = _Span(operation, messages, use)
    return Piece(trace_id, value, span_id if isinstance(span_id, str) else None, names)


def _spans(record: dict[str, Any], where: Where) -> Iterator[Piece[_Span]]:
    for span, resource, at in otlp.spans(record, where):
        shared = {k: v for k, v in resource.items() if k in CONVERSATION_KEYS}
        yield _span(span, shared, at)


def _exchange(trace_id: str, trace: OpenTrace[_Span]) -> TracedExchange | None:
    """A complete trace's chat spans' messages (an agent span's only where it has none) and its
    tool uses; None for a trace with no GenAI content (HTTP, database spans beside them)."""
    spans = trace.pieces
    chats = [s.messages for s in spans if s.messages and s.operation != AGENT]
    calls = chats or [s.messages for s in spans if s.messages]
    uses = [s.use for s in spans if s.use is not None]
    if not (calls or uses):
        return None
    return TracedExchange(trace_id, calls=calls, uses=uses)


NO_CONTENT = (
    "no GenAI span in this file holds messages: instrumentations record them only when asked "
    "(OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true)"
)


OTEL_GENAI = LogReader(
    NAME,
    "OpenTelemetry GenAI spans (OTLP JSON)",
    _spans,
    lambda keys: "resourceSpans" in keys,
    exchange=_exchange,
    nothing_read=NO_CONTENT,
).file_format()
