"""What the exports of tracing tools (Langfuse, LangSmith) share: a trace is one exchange of a
conversation, its model calls log the history, and its tool and retriever steps the calls made.

The trace's own input and output are what the user said and was answered, so where they read as
a chat they are the trace's share of the conversation; where they do not (a chain's structured
input), its model calls' messages are. Tool and retriever steps are tool turns either way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from dialbench.io.chat_messages import (
    LoggedMessage,
    ToolCall,
    ToolKind,
    Where,
    as_text,
    logged_messages,
    parsed_arguments,
)
from dialbench.io.conversation import Trail

_DOCUMENT_TEXT = ("page_content", "pageContent", "content", "text")


def seconds(value: Any) -> float | None:
    """A timestamp (ISO 8601, as both tools write them, or seconds since the epoch)."""
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value).timestamp()
        except ValueError:
            return None
    return None


def documents_text(value: Any) -> str:
    """Retrieved documents as the text a reply could draw on, one after another."""
    if isinstance(value, dict) and "documents" in value:
        value = value["documents"]
    if not isinstance(value, list):
        return as_text(value)
    texts = []
    for document in value:
        key = next((k for k in _DOCUMENT_TEXT if isinstance(document, dict) and k in document), "")
        texts.append(as_text(document[key]) if key else as_text(document))
    return "\n\n".join(texts)


def tool_use(
    name: str,
    kind: ToolKind,
    arguments: Any,
    result: str | None,
    where: Where,
    *,
    call_id: str | None = None,
    at: float | None = None,
) -> LoggedMessage:
    """A tool or retriever step as a tool message holding its one finished call."""
    call = ToolCall(name, parsed_arguments(arguments), call_id, kind, result)
    return LoggedMessage("tool", result or "", where, [call], at=at)


def _timed(messages: list[LoggedMessage], at: float | None) -> list[LoggedMessage]:
    for message in messages:
        message.at = at
    return messages


@dataclass
class TracedExchange:
    """One trace's share of its conversation: its own input and output when they are a chat,
    its model calls' messages, and its tool steps."""

    trace_id: str
    own: list[LoggedMessage] = field(default_factory=list)
    calls: list[list[LoggedMessage]] = field(default_factory=list)
    uses: list[LoggedMessage] = field(default_factory=list)

    def set_own(
        self, asked: Any, answered: Any, where: Where, start: float | None, end: float | None
    ) -> None:
        """The trace's input and output, kept when they read as a user's words and a reply;
        the reply counts as said when the trace's last step began, after its tool steps."""
        question = logged_messages(asked, where / "input", "user") or []
        answer = logged_messages(answered, where / "output", "assistant") or []
        if any(m.role == "user" for m in question) and any(m.role == "assistant" for m in answer):
            self.own = _timed(question, start) + _timed(answer, end)

    def add_call(
        self, asked: Any, answered: Any, where: Where, at: float | None, model: Any
    ) -> None:
        """A model call's messages, its reply written by `model`."""
        question = logged_messages(asked, where / "input", "user") or []
        answer = logged_messages(answered, where / "output", "assistant") or []
        for message in answer:
            if message.role == "assistant" and isinstance(model, str):
                message.model = message.model or model
        if question or answer:
            self.calls.append(_timed(question + answer, at))

    def join(self, trail: Trail | None) -> None:
        """Add this exchange to its conversation (None: it holds this trace already): its own
        messages where it has them, with the system prompt and the model its calls name, else
        its calls'."""
        if trail is None:
            return
        if not self.own:
            trail.calls.extend(self.calls)
        else:
            said = [m for call in self.calls for m in call]
            models = {m.text: m.model for m in said if m.role == "assistant" and m.model}
            for message in self.own:
                message.model = message.model or models.get(message.text)
            trail.calls.append(self.own + [m for m in said if m.role == "system"])
        trail.uses.extend(self.uses)
