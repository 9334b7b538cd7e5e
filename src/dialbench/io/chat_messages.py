"""Chat messages as production logs hold them, read into one shape.

OpenAI's chat-completions messages are the lingua franca: Langfuse and LangSmith log them as
generations' inputs, LangChain's own message dicts map onto them, and OpenTelemetry's parts say
the same things. Each reader turns its log's messages into `LoggedMessage`s (located by line and
field, so a problem found later still names where it was), and `conversation.py` makes turns of
them.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import JsonValue

from dialbench.errors import InputError

MessageRole = Literal["system", "user", "assistant", "tool"]
ToolKind = Literal["function", "retrieval"]


@dataclass(frozen=True)
class Where:
    """Where a value was read: the file, its line (or record) and the dotted field."""

    path: str
    line: int | None
    field: str

    def __truediv__(self, key: str | int) -> Where:
        return Where(self.path, self.line, f"{self.field}.{key}" if self.field else str(key))

    def error(self, message: str) -> InputError:
        return InputError(self.path, message, line=self.line, field=self.field or None)


@dataclass
class ToolCall:
    """A call a chatbot made, and what came back when the log kept it (None: not yet seen)."""

    name: str
    arguments: JsonValue = None
    call_id: str | None = None
    kind: ToolKind = "function"
    result: str | None = None

    def key(self) -> tuple[str, str, str | None]:
        return self.name, json.dumps(self.arguments, sort_keys=True), self.call_id


@dataclass
class LoggedMessage:
    """One message: a user's or system's text, an assistant's text and the calls it made, or a
    tool's result. A result names the call it answers (`answers`); a legacy function result
    only the function (`calls` empty, `answers` None, `name` set); a call logged with its result
    (a tool span) is a tool message holding that one finished call. `at` is when the logged
    call that holds the message began (seconds), where the log says."""

    role: MessageRole
    text: str
    where: Where
    calls: list[ToolCall] = field(default_factory=list)
    answers: str | None = None
    name: str | None = None
    model: str | None = None
    non_text_parts: Counter[str] = field(default_factory=Counter)
    at: float | None = None

    def key(self) -> tuple[Any, ...]:
        """What two logs of the same message share (a later call repeats the history)."""
        calls = tuple(call.key() for call in self.calls)
        return self.role, self.text, calls, self.answers, self.name


def parsed_arguments(raw: Any) -> JsonValue:
    """Arguments as JSON when a string of them parses, else as the log gave them."""
    if isinstance(raw, str):
        try:
            parsed: JsonValue = json.loads(raw)
        except json.JSONDecodeError:
            return raw
        return parsed
    return raw  # type: ignore[no-any-return]


def as_text(value: Any) -> str:
    """A value logged as a message's or a tool's output, as text: strings as they are, anything
    else as compact JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def content_text(content: Any, where: Where) -> tuple[str, Counter[str]]:
    """The text of a message's content (a string, or a list of parts) and the count of its parts
    that are not text, by type (images, audio, files): noted, never silently dropped."""
    if content is None or isinstance(content, str):
        return content or "", Counter()
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        raise where.error(f"expected text or a list of parts, got {type(content).__name__}")
    texts: list[str] = []
    others: Counter[str] = Counter()
    for index, part in enumerate(content):
        if isinstance(part, str):
            texts.append(part)
        elif not isinstance(part, dict):
            raise (where / index).error(f"expected a part object, got {type(part).__name__}")
        elif part.get("type", "text") == "text":
            texts.append(as_text(part.get("text", part.get("content"))))
        elif part.get("type") == "refusal":
            texts.append(as_text(part.get("refusal")))
        else:
            others[str(part.get("type"))] += 1
    return "\n".join(texts), others


def _openai_calls(raw: dict[str, Any], where: Where) -> list[ToolCall]:
    calls = []
    for index, call in enumerate(raw.get("tool_calls") or []):
        at = where / "tool_calls" / index
        if not isinstance(call, dict):
            raise at.error(f"expected a tool call object, got {type(call).__name__}")
        function = call.get("function", call)
        name = function.get("name") if isinstance(function, dict) else None
        if not isinstance(name, str) or not name:
            raise (at / "function" / "name").error("a tool call has no function name")
        arguments = function.get("arguments", function.get("args"))
        calls.append(ToolCall(name, parsed_arguments(arguments), call.get("id")))
    legacy = raw.get("function_call")
    if isinstance(legacy, dict) and legacy.get("name"):
        calls.append(ToolCall(str(legacy["name"]), parsed_arguments(legacy.get("arguments"))))
    return calls


SYSTEM_ROLES = frozenset({"system", "developer"})
# LangChain's message types (`type` of its dicts, the class of its serialised messages).
_LANGCHAIN_ROLES = {
    "human": "user",
    "ai": "assistant",
    "system": "system",
    "tool": "tool",
    "function": "function",
    "HumanMessage": "user",
    "AIMessage": "assistant",
    "AIMessageChunk": "assistant",
    "SystemMessage": "system",
    "ToolMessage": "tool",
    "FunctionMessage": "function",
}


def _langchain_as_openai(raw: dict[str, Any]) -> dict[str, Any]:
    """A LangChain message (a dict with `type`, or serialised: `lc`, `id`, `kwargs`) in
    OpenAI's shape."""
    if raw.get("lc") is not None and isinstance(raw.get("kwargs"), dict):
        kind = str(raw.get("id", ["?"])[-1]) if isinstance(raw.get("id"), list) else "?"
        body = dict(raw["kwargs"])
    else:
        kind, body = str(raw.get("type")), {**raw, **(raw.get("data") or {})}
    role = body.get("role") if kind in {"chat", "ChatMessage"} else _LANGCHAIN_ROLES.get(kind)
    calls = body.get("tool_calls") or (body.get("additional_kwargs") or {}).get("tool_calls")
    return {
        "role": role,
        "content": body.get("content"),
        "tool_calls": calls,
        "tool_call_id": body.get("tool_call_id"),
        "name": body.get("name"),
    }


def openai_message(raw: Any, where: Where, model: str | None = None) -> LoggedMessage:
    """One chat-completions message (or a LangChain one, in its own shape)."""
    if not isinstance(raw, dict):
        raise where.error(f"expected a message object, got {type(raw).__name__}")
    if "role" not in raw and ("lc" in raw or "type" in raw):
        raw = _langchain_as_openai(raw)
    role = raw.get("role")
    if role is None:
        raise (where / "role").error("a message has no role")
    text, others = content_text(raw.get("content"), where / "content")
    if role in SYSTEM_ROLES:
        return LoggedMessage("system", text, where, non_text_parts=others)
    if role == "user":
        return LoggedMessage("user", text, where, non_text_parts=others)
    if role == "assistant":
        if not text and isinstance(raw.get("refusal"), str):
            text = raw["refusal"]
        calls = _openai_calls(raw, where)
        return LoggedMessage("assistant", text, where, calls, model=model, non_text_parts=others)
    if role == "tool":
        answers = raw.get("tool_call_id")
        if not isinstance(answers, str) or not answers:
            raise (where / "tool_call_id").error("a tool message has no tool_call_id")
        at = where / "tool_call_id"
        return LoggedMessage("tool", text, at, answers=answers, non_text_parts=others)
    if role == "function":
        name = raw.get("name")
        return LoggedMessage("tool", text, where, name=name if isinstance(name, str) else None)
    raise (where / "role").error(f"unknown role {role!r}")


def openai_messages(raw: Any, where: Where) -> list[LoggedMessage]:
    """A list of chat-completions messages."""
    if not isinstance(raw, list):
        raise where.error(f"expected a list of messages, got {type(raw).__name__}")
    return [openai_message(item, where / index) for index, item in enumerate(raw)]


# Keys under which tracers log a chain's plain text input or output (LangChain, Langfuse).
TEXT_KEYS = ("input", "question", "query", "prompt", "output", "answer", "response", "text")


def _looks_like_message(value: Any) -> bool:
    return isinstance(value, dict) and (
        "role" in value or "lc" in value or value.get("type") in _LANGCHAIN_ROLES
    )


def logged_messages(value: Any, where: Where, speaker: MessageRole) -> list[LoggedMessage] | None:
    """The messages in a traced model call's input or output, however the tracer wrote them: a
    list of messages (LangChain's batches: a list of lists), `{"messages": ...}`, one message,
    a chat completion (`choices`), LangChain's `generations`, or plain text (the `speaker`'s),
    bare or under one of TEXT_KEYS; None when the value holds none of these."""
    if isinstance(value, str):
        return [LoggedMessage(speaker, value, where)] if value else []
    if isinstance(value, list) and value and all(isinstance(v, list) for v in value):
        return logged_messages(value[0], where / 0, speaker)
    if isinstance(value, list) and value and all(_looks_like_message(v) for v in value):
        return openai_messages(value, where)
    if not isinstance(value, dict):
        return None
    if _looks_like_message(value):
        return [openai_message(value, where)]
    if "messages" in value:
        return logged_messages(value["messages"], where / "messages", speaker)
    choices = value.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        at = where / "choices" / 0 / "message"
        return [openai_message(choices[0].get("message"), at, model=value.get("model"))]
    generations = value.get("generations")
    if isinstance(generations, list) and generations:
        first = generations[0][0] if isinstance(generations[0], list) else generations[0]
        at = where / "generations" / 0
        if isinstance(first, dict) and _looks_like_message(first.get("message")):
            return [openai_message(first["message"], at / "message")]
        if isinstance(first, dict) and isinstance(first.get("text"), str):
            return [LoggedMessage("assistant", first["text"], at / "text")]
    text_key = next((k for k in TEXT_KEYS if isinstance(value.get(k), str)), None)
    if text_key is not None:
        return [LoggedMessage(speaker, value[text_key], where / text_key)]
    return None
