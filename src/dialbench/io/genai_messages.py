"""The messages that GenAI telemetry records, read into `LoggedMessage`s, whichever convention
wrote them: the GenAI semantic conventions v1.37+ (`gen_ai.input.messages` /
`gen_ai.output.messages` with their parts, `gen_ai.system_instructions`), v1.28 to v1.36's
message and choice events and the content events before them (on spans, or as log records),
OpenLLMetry's indexed `gen_ai.prompt.N.*` / `gen_ai.completion.N.*`, OpenInference's
`llm.input_messages.N.message.*` / `llm.output_messages.N.message.*`, and the Langfuse SDK's
generations (`langfuse.observation.input` / `.output`). `otel_genai.py` finds
them on spans and log records and makes conversations of them.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from dialbench.io import otlp
from dialbench.io.chat_messages import (
    LoggedMessage,
    MessageRole,
    ToolCall,
    Where,
    as_text,
    content_text,
    logged_messages,
    openai_message,
    openai_messages,
    parsed_arguments,
)

_EVENT_ROLES = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}


def json_value(value: Any, where: Where) -> Any:
    """A value recorded as a JSON string on spans, structured on events."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except json.JSONDecodeError as bad:
        raise where.error(f"not valid JSON ({bad.msg})") from None


def call_id(value: Any) -> str | None:
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
            calls.append(ToolCall(str(part["name"]), arguments, call_id(part.get("id"))))
        elif kind == "tool_call_response":
            result = as_text(part.get("response", part.get("result")))
            results.append(LoggedMessage("tool", result, at, answers=call_id(part.get("id"))))
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
    messages = json_value(value, where)
    if not isinstance(messages, list):
        raise where.error(f"expected a list of messages, got {type(messages).__name__}")
    return [
        m for index, raw in enumerate(messages) for m in _part_message(raw, where / index, model)
    ]


def _instructions(value: Any, where: Where) -> list[LoggedMessage]:
    parts = json_value(value, where)
    parts = parts if isinstance(parts, list) else [parts]
    texts = [as_text(p.get("content")) if isinstance(p, dict) else as_text(p) for p in parts]
    return [LoggedMessage("system", "\n".join(texts), where)]


def _function_call(call: Any) -> Any:
    """A flattened tool call as chat completions write one: `{"id", "function": {...}}`."""
    if not isinstance(call, dict) or "function" in call:
        return call
    function = {key: call[key] for key in ("name", "arguments") if key in call}
    return {"id": call.get("id"), "type": "function", "function": function}


def indexed_messages(
    attributes: dict[str, Any], where: Where, model: str | None
) -> list[LoggedMessage]:
    """OpenLLMetry's `gen_ai.prompt.N.*` and `gen_ai.completion.N.*` (tool calls flattened
    under `.tool_calls.M.name`, `.arguments`, `.id`)."""
    messages = []
    for prefix, default in (("gen_ai.prompt.", "user"), ("gen_ai.completion.", "assistant")):
        for index, raw in enumerate(otlp.nested(attributes, prefix)):
            if not isinstance(raw, dict):
                continue
            raw.setdefault("role", default)
            if isinstance(raw.get("tool_calls"), list):
                raw["tool_calls"] = [_function_call(call) for call in raw["tool_calls"]]
            writer = model if default == "assistant" else None
            messages.append(openai_message(raw, where / f"{prefix}{index}", writer))
    return messages


def _openinference_message(raw: Any) -> dict[str, Any]:
    """One of OpenInference's `llm.input_messages.N.message` as a chat-completions message:
    its `contents` parts' text where it has no `content`, its `tool_calls.M.tool_call`."""
    message = raw.get("message") if isinstance(raw, dict) else None
    if not isinstance(message, dict):
        return {}
    keys = ("role", "content", "tool_call_id", "name")
    shaped = {key: message[key] for key in keys if key in message}
    contents = message.get("contents")
    if "content" not in message and isinstance(contents, list):
        parts = [p.get("message_content") or {} for p in contents if isinstance(p, dict)]
        shaped["content"] = [{"type": p.get("type", "text"), "text": p.get("text")} for p in parts]
    calls = [c.get("tool_call") for c in message.get("tool_calls") or [] if isinstance(c, dict)]
    if calls:
        shaped["tool_calls"] = [_function_call(call) for call in calls if isinstance(call, dict)]
    return shaped


def openinference_messages(
    attributes: dict[str, Any], where: Where, model: str | None
) -> list[LoggedMessage]:
    """An OpenInference LLM span's `llm.input_messages.*` and `llm.output_messages.*`."""
    messages = []
    for prefix, writer in (("llm.input_messages.", None), ("llm.output_messages.", model)):
        for index, raw in enumerate(otlp.nested(attributes, prefix)):
            shaped = _openinference_message(raw)
            if shaped:
                messages.append(openai_message(shaped, where / f"{prefix}{index}.message", writer))
    return messages


def event_messages(
    name: Any, fields: dict[str, Any], at: Where, model: str | None
) -> list[LoggedMessage]:
    """The messages of one GenAI event (a span event's attributes, or a log record's with its
    body): v1.37+'s `gen_ai.client.inference.operation.details`, v1.28 to v1.36's message and
    choice events, and the content events before them."""
    if name == "gen_ai.tool.message" and not fields.get("id"):
        # OpenLLMetry's events name no call: a result answers the earliest call not answered.
        text, others = content_text(fields.get("content"), at / "content")
        return [LoggedMessage("tool", text, at, non_text_parts=others)]
    if name in _EVENT_ROLES:
        raw = {
            "role": _EVENT_ROLES[name],
            "content": fields.get("content"),
            "tool_calls": json_value(fields.get("tool_calls"), at / "attributes.tool_calls"),
            "tool_call_id": fields.get("id"),
        }
        return [openai_message(raw, at, model)]
    if name == "gen_ai.choice":
        if fields.get("index", 0) != 0:
            return []
        choice = json_value(fields.get("message"), at / "attributes.message") or {}
        if not isinstance(choice, dict):
            raise (at / "attributes.message").error("expected a message object")
        if "tool_calls" in fields and not choice.get("tool_calls"):  # OpenLLMetry's place
            choice = choice | {"tool_calls": json_value(fields["tool_calls"], at / "tool_calls")}
        return [openai_message({"role": "assistant", **choice}, at, model)]
    if name in {"gen_ai.content.prompt", "gen_ai.content.completion"}:
        key = "gen_ai.prompt" if name == "gen_ai.content.prompt" else "gen_ai.completion"
        field_at = at / f"attributes.{key}"
        return openai_messages(json_value(fields.get(key), field_at), field_at)
    if "gen_ai.input.messages" in fields or "gen_ai.output.messages" in fields:
        return current_messages(fields, at / "attributes", model)
    return []


def span_event_messages(events: Any, where: Where, model: str | None) -> list[LoggedMessage]:
    """The messages of a span's events."""
    messages: list[LoggedMessage] = []
    for index, event in enumerate(events or []):
        at = where / index
        name = event.get("name") if isinstance(event, dict) else None
        attributes = otlp.attributes(event.get("attributes"), at / "attributes") if name else {}
        messages.extend(event_messages(name, attributes, at, model))
    return messages


def current_messages(
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


LANGFUSE_TYPE = "langfuse.observation.type"


def _langfuse_value(value: Any) -> Any:
    """An observation's input or output as the SDK wrote it: JSON of what the wrapped call was
    given or returned, or plain text."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        return value


def langfuse_messages(
    attributes: dict[str, Any], where: Where, model: str | None
) -> list[LoggedMessage]:
    """A Langfuse SDK generation's `langfuse.observation.input` (the call's `messages`, beside
    its `tools`) and `.output` (the reply)."""
    if attributes.get(LANGFUSE_TYPE) != "generation":
        return []
    messages: list[LoggedMessage] = []
    sides: tuple[tuple[str, MessageRole], ...] = (("input", "user"), ("output", "assistant"))
    for key, speaker in sides:
        at = where / f"langfuse.observation.{key}"
        value = _langfuse_value(attributes.get(f"langfuse.observation.{key}"))
        messages.extend(logged_messages(value, at, speaker) or [])
    for message in messages:
        if message.role == "assistant":
            message.model = message.model or model
    return messages


def langfuse_value_text(attributes: dict[str, Any], key: str) -> str | None:
    """An observation's input or output as text (a tool's arguments or result)."""
    value = attributes.get(f"langfuse.observation.{key}")
    return None if value is None else as_text(_langfuse_value(value))
