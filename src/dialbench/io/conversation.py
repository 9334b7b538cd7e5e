"""A conversation pieced together from logged model calls, and the dialogue record made of it.

Each call a chatbot makes logs the history it sent, so the calls of one conversation repeat each
other: a conversation is the longest history they agree on, never their concatenation. Where a
log holds only each call's new messages (a stateful API), the pieces follow one another instead.
Turns follow the shared ground of `schema.Turn`: an assistant message's text (when it has any)
is an assistant turn, then one tool turn per call it made, carrying that call's result.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import JsonValue

from dialbench.errors import InputError
from dialbench.io.chat_messages import Message, ToolCall
from dialbench.io.file_format import Item, ReadRequest
from dialbench.io.language import language_of


def _common_prefix(first: Sequence[Message], second: Sequence[Message]) -> int:
    length = 0
    for a, b in zip(first, second, strict=False):
        if a.key() != b.key():
            break
        length += 1
    return length


def _overlap(history: Sequence[Message], piece: Sequence[Message]) -> int:
    """How many of the history's last messages the piece starts with."""
    for size in range(min(len(history), len(piece)), 0, -1):
        ends = [m.key() for m in history[-size:]]
        if ends == [m.key() for m in piece[:size]]:
            return size
    return 0


def merged(history: list[Message], piece: list[Message]) -> list[Message]:
    """The history with a later call's messages: a piece that repeats the history and goes on
    replaces it; one the history already holds changes nothing; where both go on from a shared
    start (a regenerated reply) the longer wins; a piece sharing no start follows the history,
    less what the two overlap."""
    shared = _common_prefix(history, piece)
    if shared == len(history):
        return history + piece[shared:]
    if shared == len(piece):
        return history
    if shared:
        return piece if len(piece) >= len(history) else history
    return history + piece[_overlap(history, piece) :]


@dataclass
class _ToolTurns:
    """Tool turns waiting for their results, by call id and, for id-less calls, in order."""

    by_id: dict[str, dict[str, Any]] = field(default_factory=dict)
    unanswered: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def add(self, call: ToolCall) -> dict[str, Any]:
        tool: dict[str, JsonValue] = {"name": call.name, "arguments": call.arguments}
        if call.call_id is not None:
            tool["call_id"] = call.call_id
        if call.kind != "function":
            tool["kind"] = call.kind
        turn = {"role": "tool", "text": call.result or "", "tool": tool}
        if call.call_id is not None:
            self.by_id[call.call_id] = turn
        if call.result is None:
            self.unanswered.append((call.name, turn))
        return turn

    def answer(self, message: Message) -> bool:
        """Give the result to its call's turn; False when no call it answers was made."""
        if message.answers is not None:
            turn = self.by_id.get(message.answers)
        else:
            turn = next((t for n, t in self.unanswered if message.name in {None, n}), None)
        if turn is None:
            return False
        turn["text"] = message.text
        self.unanswered = [(n, t) for n, t in self.unanswered if t is not turn]
        return True


def _notes(message: Message) -> dict[str, JsonValue]:
    if not message.non_text_parts:
        return {}
    return {"metadata": {"non_text_parts": dict(message.non_text_parts)}}


def turns_of(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """The turns of a conversation's messages (system messages are no turns); a result whose
    call no earlier message made is an error at the result."""
    turns: list[dict[str, Any]] = []
    waiting = _ToolTurns()
    for message in messages:
        if message.role == "user":
            turns.append({"role": "user", "text": message.text, **_notes(message)})
        elif message.role == "assistant":
            if message.text or not message.calls:
                turn = {"role": "assistant", "text": message.text, **_notes(message)}
                turns.append(turn | ({"model": message.model} if message.model else {}))
            turns.extend(waiting.add(call) for call in message.calls)
        elif message.role == "tool" and message.calls:
            for call in message.calls:
                asked = waiting.by_id.get(call.call_id) if call.call_id else None
                if asked is None:
                    turns.append(waiting.add(call))
                elif not asked["text"]:
                    asked["text"] = call.result or ""
        elif message.role == "tool" and not waiting.answer(message):
            what = f"call id {message.answers!r}" if message.answers else "function"
            raise message.where.error(f"a tool result for {what} that no earlier call made")
    return turns


def _matching_call(history: Sequence[Message], use: ToolCall) -> ToolCall | None:
    calls = [call for message in history for call in message.calls]
    if use.call_id is not None:
        return next((call for call in calls if call.call_id == use.call_id), None)
    return next((c for c in calls if c.name == use.name and c.result is None), None)


def with_tool_uses(history: list[Message], uses: Sequence[Message]) -> list[Message]:
    """The history with the tool calls logged on their own (tool spans, retriever runs): a call
    the history's messages made gets its result; any other goes before the first assistant
    message logged after it began (the reply it was made for), else at the end."""
    placed = list(history)
    for use in sorted(uses, key=lambda m: m.at or 0.0):
        call = use.calls[0]
        made = _matching_call(placed, call)
        if made is not None:
            made.result = made.result if made.result is not None else call.result
            continue
        later = (
            i
            for i, m in enumerate(placed)
            if m.role == "assistant" and m.at is not None and m.at >= (use.at or 0.0)
        )
        placed.insert(next(later, len(placed)), use)
    return placed


def _system_prompt(messages: Sequence[Message]) -> str | None:
    prompts = [m.text for m in messages if m.role == "system" and m.text]
    return "\n\n".join(dict.fromkeys(prompts)) or None


def _language(turns: list[dict[str, Any]], request: ReadRequest) -> str | None:
    if request.language is not None:
        return request.language
    return language_of([t["text"] for t in turns if t["role"] == "user"])


def dialogue_item(
    path: str,
    line: int | None,
    messages: Sequence[Message],
    request: ReadRequest,
    source: str,
    metadata: dict[str, JsonValue],
) -> Item:
    """A dialogue record of a conversation's messages, or the problem with it."""
    try:
        turns = turns_of(messages)
    except InputError as bad:
        return line, bad
    if not turns:
        return line, InputError(path, "a conversation with no user or assistant turns", line=line)
    language = _language(turns, request)
    if language is None:
        words = sum(len(t["text"].split()) for t in turns if t["role"] == "user")
        message = (
            f"cannot tell the conversation's language from its user turns ({words} words); "
            "pass --language"
        )
        return line, InputError(path, message, line=line)
    models = {t["model"] for t in turns if t.get("model")}
    system = _system_prompt(messages)
    extra: dict[str, JsonValue] = {"system_prompt": system} if system else {}
    record: dict[str, Any] = {
        "language": language,
        "source": source,
        "turns": turns,
        "metadata": metadata | extra,
    }
    if len(models) == 1:
        record["participants"] = {"assistant": models.pop()}
    return line, record


@dataclass
class _Open:
    line: int | None
    history: list[Message] = field(default_factory=list)
    system: dict[str, Message] = field(default_factory=dict)
    pieces: int = 0
    last_line: int = 0


# A stateless log's conversation untouched for this many lines is given out: memory stays
# bounded in a log of any length. Should a later call go on with it, that call carries the whole
# history, so the conversation comes again, longer, and the import's prefix dedupe drops the
# first one.
QUIET_LINES = 10_000


class Conversations:
    """Conversations still open in a log, by their id, in the order they were last touched.

    `stateless`: every call sends the whole history (chat completions), so a call sharing no
    start with its conversation's history begins a new conversation under the same id (a user's
    next chat), and the one before is complete; and a conversation untouched for `QUIET_LINES`
    lines is complete. Otherwise (calls log only what is new) any later line may go on with one,
    and they stay in memory until the log ends."""

    def __init__(self, path: str, request: ReadRequest, source: str, stateless: bool) -> None:
        self.path, self.request, self.source, self.stateless = path, request, source, stateless
        self.open: dict[str, _Open] = {}

    def add(self, key: str, line: int | None, messages: list[Message]) -> list[Item]:
        """Add a call's messages; returns the conversations that this line completed."""
        said = [m for m in messages if m.role != "system"]
        done = []
        before = self.open.pop(key, None)
        if self.stateless and before and said and not _common_prefix(before.history, said):
            self.open[key] = before
            done.append(self.close(key))
            before = None
        conversation = before or _Open(line)
        self.open[key] = conversation
        conversation.history = merged(conversation.history, said)
        for message in messages:
            if message.role == "system":
                conversation.system.setdefault(message.text, message)
        conversation.pieces += 1
        if self.stateless and line is not None:
            conversation.last_line = line
            while (oldest := next(iter(self.open))) and self.open[oldest].last_line < (
                line - QUIET_LINES
            ):
                done.append(self.close(oldest))
        return done

    def close(self, key: str) -> Item:
        """The dialogue of one conversation, which leaves the open ones."""
        conversation = self.open.pop(key)
        messages = [*conversation.system.values(), *conversation.history]
        about: dict[str, JsonValue] = {"conversation_id": key, "calls": conversation.pieces}
        return dialogue_item(
            self.path, conversation.line, messages, self.request, self.source, about
        )

    def close_all(self) -> Iterator[Item]:
        for key in list(self.open):
            yield self.close(key)


@dataclass
class Trail:
    """What the traces of one conversation logged, gathered until the log ends: each model
    call's messages, and the tool calls logged on their own."""

    line: int | None
    conversation_id: str | None = None
    trace_ids: list[str] = field(default_factory=list)
    calls: list[list[Message]] = field(default_factory=list)
    uses: list[Message] = field(default_factory=list)

    def messages(self) -> list[Message]:
        """The calls in the order they began, merged into one history, with the tool uses."""
        system: dict[str, Message] = {}
        history: list[Message] = []
        for call in sorted(self.calls, key=lambda messages: messages[0].at or 0.0):
            for message in call:
                if message.role == "system":
                    system.setdefault(message.text, message)
            history = merged(history, [m for m in call if m.role != "system"])
        return [*system.values(), *with_tool_uses(history, self.uses)]

    def item(self, path: str, request: ReadRequest, source: str) -> Item:
        about: dict[str, JsonValue] = {"trace_ids": list(self.trace_ids)}
        if self.conversation_id is not None:
            about["conversation_id"] = self.conversation_id
        return dialogue_item(path, self.line, self.messages(), request, source, about)


def trail_for(
    trails: dict[str, Trail], conversation: str | None, trace_id: str, line: int | None
) -> Trail:
    """The trail of the conversation a trace names (a trace naming none is one by itself),
    with the trace noted in it."""
    trail = trails.setdefault(conversation or f"trace {trace_id}", Trail(line, conversation))
    trail.trace_ids.append(trace_id)
    return trail
