"""OpenAI chat-completions logs: JSON Lines, one logged call per line (or a JSON array of them).

A line is either a call as proxies and loggers record it, `{"request": {"model", "messages"},
"response": {"id", "model", "created", "choices": [{"message"}]}}`, or the bare
`{"messages": [...]}` of fine-tuning and evals files (LiteLLM's logging payload adds its
`response` beside them). The response's message is the conversation's last assistant turn.
Refused, each with its reason: the Responses API (`input`/`output`), legacy completions
(`prompt`), streamed chunks, and a response logged without its request.

A call's conversation is named by the first of `conversation_id`, `session_id`, `thread_id` at
the top of the line, in its `metadata`, in the request or the request's `metadata` (OpenAI's
stored completions keep the caller's metadata; LiteLLM's `litellm_session_id`, which its
logging payload writes as `trace_id`), else by the end user (`user`, LiteLLM's `end_user`); a
line naming none is a dialogue of its own. Calls of
one conversation repeat its history, so it is the longest one they agree on.

Held in memory: the messages of the conversations still open, each until a call of the same id
starts afresh (the user's next chat), or until no call of it came for `QUIET_RECORDS` lines
(10,000; `conversation.Conversations`), or the log ends. A call that goes on with a conversation
given out carries the whole history: it comes out again, longer, and the import's prefix dedupe
keeps that one.
"""

from __future__ import annotations

from typing import Any

from pydantic import JsonValue

from dialbench.io.chat_messages import LoggedMessage, Where, openai_message, openai_messages
from dialbench.io.log_reader import LoggedCall, LogReader

NAME = "openai-log"
CONVERSATION_KEYS = ("conversation_id", "session_id", "thread_id", "litellm_session_id")
USER_KEYS = ("user", "end_user")
# LiteLLM's StandardLoggingPayload (told by its call id) puts `litellm_session_id` in its
# `trace_id` and leaves `session_id` empty, unless `litellm.request_correlation_in_logs`; with
# no session its trace id is the call's own, a dialogue by itself, as with no name at all.
LITELLM = "litellm_call_id"
LITELLM_TRACE = ("trace_id",)
_REFUSED = {
    "input": "an OpenAI Responses API log (input/output), not chat completions",
    "output": "an OpenAI Responses API log (input/output), not chat completions",
    "prompt": "a legacy completions log (prompt), not chat completions",
}


def _conversation_id(line: dict[str, Any], request: dict[str, Any]) -> str | None:
    places = [line, line.get("metadata"), request, request.get("metadata")]
    litellm_trace = (LITELLM_TRACE,) if LITELLM in line else ()
    for keys in (CONVERSATION_KEYS, *litellm_trace, USER_KEYS):
        for place in places:
            if isinstance(place, dict):
                found = next((place[k] for k in keys if place.get(k) not in (None, "")), None)
                if isinstance(found, str | int):
                    return str(found)
    return None


def _refusal(line: dict[str, Any]) -> str:
    if line.get("object") == "chat.completion.chunk":
        return "a streamed chunk (chat.completion.chunk); log the assembled call"
    if "choices" in line:
        return "a response logged without its request: the conversation's history is missing"
    reason = next((r for key, r in _REFUSED.items() if key in line), None)
    keys = ", ".join(sorted(line)[:8]) or "none"
    return reason or (
        'not a chat-completions call: expected {"request": {"messages": [...]}, "response": '
        f'{{...}}}} or {{"messages": [...]}} (keys: {keys})'
    )


def _response_message(response: Any, where: Where) -> list[LoggedMessage]:
    if response is None:
        return []
    if not isinstance(response, dict):
        raise where.error(f"expected a chat completion object, got {type(response).__name__}")
    choices = response.get("choices")
    if not isinstance(choices, list) or not choices:
        raise (where / "choices").error("a response with no choices")
    choice = choices[0]
    if not isinstance(choice, dict) or "message" not in choice:
        raise (where / "choices" / 0 / "message").error("a choice with no message")
    model = response.get("model")
    at = where / "choices" / 0 / "message"
    return [openai_message(choice["message"], at, model if isinstance(model, str) else None)]


def _call(line: dict[str, Any], where: Where) -> tuple[dict[str, Any], list[LoggedMessage]]:
    """The request (what names the conversation) and the messages of one logged call."""
    if isinstance(line.get("request"), dict) and "messages" in line["request"]:
        request, at = line["request"], where / "request"
    elif "messages" in line:
        request, at = line, where
    else:
        raise where.error(_refusal(line))
    messages = openai_messages(request["messages"], at / "messages")
    answer = _response_message(line.get("response"), where / "response")
    asked = request.get("model")
    for message in answer:
        message.model = message.model or (asked if isinstance(asked, str) else None)
    return request, messages + answer


def _about(line: dict[str, Any]) -> dict[str, JsonValue]:
    response = line.get("response")
    if isinstance(response, dict) and isinstance(response.get("id"), str):
        return {"response_id": response["id"]}
    return {}


def _logged_call(line: dict[str, Any], where: Where) -> list[LoggedCall]:
    logged, messages = _call(line, where)
    return [LoggedCall(_conversation_id(line, logged), messages, _about(line))]


def _recognises(keys: frozenset[str]) -> bool:
    return "messages" in keys or {"request", "response"} <= keys


OPENAI_LOG = LogReader(
    NAME,
    "OpenAI chat-completions logs, one call per line",
    _logged_call,
    _recognises,
).file_format()
