"""The chat app every capture runs: the eight conversations through one `create` function
(the openai SDK's `client.chat.completions.create`, or `litellm.completion`).

For each user turn: call the model; while its reply has tool calls, run the fake local tools
and append one `{"role": "tool", "tool_call_id", "content": json.dumps(result)}` per call,
then call again. A streamed conversation assembles each reply from its chunks.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from typing import Any

from conversations import CONVERSATIONS, MODEL, Conversation, UserTurn, run_tool

Create = Callable[..., Any]
# Per conversation: extra keyword arguments for every call of it.
Extra = Callable[[Conversation], dict[str, Any]]
# Around each conversation, and around each user turn (with the messages so far).
Around = Callable[[Conversation], contextlib.AbstractContextManager[Any]]
AroundTurn = Callable[
    [Conversation, UserTurn, Callable[[], str]], contextlib.AbstractContextManager[Any]
]


def _get(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, dict) else getattr(value, key, None)


def _message(response: Any) -> dict[str, Any]:
    """A chat completion's first choice as the assistant message the app keeps."""
    message = _get(_get(response, "choices")[0], "message")
    kept: dict[str, Any] = {"role": "assistant", "content": _get(message, "content")}
    calls = _get(message, "tool_calls") or []
    if calls:
        kept["tool_calls"] = [
            {
                "id": _get(call, "id"),
                "type": "function",
                "function": {
                    "name": _get(_get(call, "function"), "name"),
                    "arguments": _get(_get(call, "function"), "arguments"),
                },
            }
            for call in calls
        ]
    return kept


def _assembled(stream: Any) -> dict[str, Any]:
    """The assistant message a stream of chunks makes."""
    text: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    for chunk in stream:
        for choice in _get(chunk, "choices") or []:
            delta = _get(choice, "delta")
            if delta is None:
                continue
            if _get(delta, "content"):
                text.append(_get(delta, "content"))
            for part in _get(delta, "tool_calls") or []:
                number = _get(part, "index") or 0
                call = calls.setdefault(
                    number,
                    {"id": None, "type": "function", "function": {"name": "", "arguments": ""}},
                )
                if _get(part, "id"):
                    call["id"] = _get(part, "id")
                function = _get(part, "function")
                if function is not None:
                    if _get(function, "name"):
                        call["function"]["name"] = _get(function, "name")
                    call["function"]["arguments"] += _get(function, "arguments") or ""
    kept: dict[str, Any] = {"role": "assistant", "content": "".join(text) or None}
    if calls:
        kept["tool_calls"] = [calls[n] for n in sorted(calls)]
    return kept


@contextlib.contextmanager
def _nothing(*_: Any) -> Iterator[None]:
    yield


def converse(
    create: Create,
    conversation: Conversation,
    *,
    extra: Extra | None = None,
    around_turn: AroundTurn | None = None,
    after_call: Callable[[], None] | None = None,
) -> list[dict[str, Any]]:
    """One conversation, its messages as the app ended up holding them."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": conversation.system}]
    around_turn = around_turn or _nothing
    for turn in conversation.turns:
        messages.append({"role": "user", "content": turn.text})
        answer: list[str] = []
        with around_turn(conversation, turn, lambda answer=answer: "".join(answer)):
            while True:
                kwargs: dict[str, Any] = {
                    "model": MODEL,
                    "messages": [dict(m) for m in messages],
                    "tools": conversation.tool_schemas(),
                    "temperature": 0.2,
                }
                if conversation.stream:
                    kwargs["stream"] = True
                    kwargs["stream_options"] = {"include_usage": True}
                kwargs |= (extra or (lambda _: {}))(conversation)
                response = create(**kwargs)
                message = _assembled(response) if conversation.stream else _message(response)
                if after_call is not None:
                    after_call()
                messages.append(message)
                if not message.get("tool_calls"):
                    answer.append(message.get("content") or "")
                    break
                for call in message["tool_calls"]:
                    result = run_tool(call["function"]["name"], call["function"]["arguments"])
                    messages.append(
                        {
                            "role": "tool",
                            "tool_call_id": call["id"],
                            "content": json.dumps(result, ensure_ascii=False),
                        }
                    )
    return messages


def converse_all(
    create: Create,
    *,
    around: Around | None = None,
    **options: Any,
) -> list[list[dict[str, Any]]]:
    """All eight conversations, one after another."""
    held = []
    for conversation in CONVERSATIONS:
        with (around or _nothing)(conversation):
            held.append(converse(create, conversation, **options))
    return held
