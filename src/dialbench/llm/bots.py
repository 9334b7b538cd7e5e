"""What a chatbot of the user's own (`python:`, `http:`) gets for each turn, and how its answer
becomes a `Completion`.

A bot is not a model: it gets the dialogue so far as chat messages (without the system prompt a
simulation gives models: a bot has its own instructions), the dialogue's id and language, and,
when it keeps its own history (`stateful`), the session to keep it under. It answers the reply's
text, or a `BotReply` with the tokens it used. A `python:` bot is also offered the tools a
request has (a replay's), and may answer with calls to them instead of text.
"""

from __future__ import annotations

import uuid
from typing import Any

from pydantic import ConfigDict, Field, ValidationError

from dialbench.llm.base import (
    BackendSettings,
    Completion,
    Message,
    ModelError,
    Request,
    ToolCall,
    ToolDefinition,
)
from dialbench.schema import Record, Usage


def stateful_setting() -> Any:
    """The `stateful` setting of every chatbot of your own."""
    return Field(
        default=False,
        description="the bot keeps its own history: it is sent the new user message and a "
        "session per dialogue",
    )


class BotSettings(BackendSettings):
    """The settings of a chatbot of your own that is a Python function (`python:`)."""

    stateful: bool = stateful_setting()


class BotRequest(Record):
    """One turn asked of a bot of your own."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    messages: tuple[Message, ...] = Field(
        description="the dialogue so far, the user's last (or a tool's result), with the tool "
        "calls made and their results as `Message` holds them"
    )
    conversation_id: str | None = Field(
        default=None, description="the dialogue's id; None outside a dialogue (dialbench chat)"
    )
    language: str | None = Field(default=None, description="the dialogue's language (BCP 47)")
    session_id: str | None = Field(
        default=None,
        description="stateful bots only: keep the history under this id; a new one per dialogue "
        "(and per run that plays it), or per call outside a dialogue",
    )
    tools: tuple[ToolDefinition, ...] = Field(
        default=(), description="the functions the bot may call instead of answering text"
    )

    @property
    def last_user_message(self) -> str:
        """What a stateful bot is sent: the user's newest message."""
        return next((m.content for m in reversed(self.messages) if m.role == "user"), "")


class BotReply(Record):
    """A bot's answer when it reports what it used or calls tools; a plain `str` answer is its
    text alone."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str = Field(default="", description="may be empty where the bot calls tools")
    tool_calls: list[ToolCall] = Field(
        default_factory=list, description="calls to the request's tools, in the order made"
    )
    usage: Usage = Field(default_factory=Usage)


def bot_request(spec: str, request: Request, *, stateful: bool) -> BotRequest:
    """The bot's view of a chat request; a stateful bot outside a dialogue gets a session per
    call (each call is then a conversation of its own)."""
    if request.kind != "chat":
        raise ModelError(f"{spec} is a chatbot: it takes chat messages, not a {request.kind}")
    conversation = request.conversation
    session = conversation.session if conversation is not None else None
    if stateful and session is None:
        session = uuid.uuid4().hex
    return BotRequest(
        messages=request.messages,
        conversation_id=conversation.id if conversation is not None else None,
        language=conversation.language if conversation is not None else None,
        session_id=session,
        tools=request.tools,
    )


def bot_completion(spec: str, answer: Any, latency_s: float, raw: Any = None) -> Completion:
    """A bot's answer as a completion; an empty reply (no text and no tool call) or one of
    another type is an error that trying again would not mend."""
    try:
        reply = (
            BotReply(text=answer) if isinstance(answer, str) else BotReply.model_validate(answer)
        )
    except ValidationError:
        raise ModelError(
            f"{spec} answered a {type(answer).__name__}: return the reply's text or a BotReply"
        ) from None
    if not reply.text.strip() and not reply.tool_calls:
        raise ModelError(f"{spec} returned an empty reply")
    return Completion(
        text=reply.text,
        tool_calls=reply.tool_calls,
        finish_reason="tool_calls" if reply.tool_calls else "stop",
        usage=reply.usage,
        latency_s=latency_s,
        model=spec,
        raw=raw,
    )
