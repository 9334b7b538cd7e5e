"""A conversation pieced together from logged model calls, and the dialogue record made of it.

Each call a chatbot makes logs the history it sent, so the calls of one conversation repeat each
other: a conversation is the longest history they agree on, never their concatenation. Where a
log holds only each call's new messages (a stateful API), the pieces follow one another instead.
Turns follow the shared ground of `schema.Turn`: an assistant message's text (when it has any)
is an assistant turn, then one tool turn per call it made, carrying that call's result.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import JsonValue

from dialbench.errors import InputError
from dialbench.io.chat_messages import LoggedMessage, ToolCall
from dialbench.io.file_format import Item, ReadRequest
from dialbench.io.language import language_of


def _common_prefix(first: Sequence[LoggedMessage], second: Sequence[LoggedMessage]) -> int:
    length = 0
    for a, b in zip(first, second, strict=False):
        if a.key() != b.key():
            break
        length += 1
    return length


def _overlap(history: Sequence[LoggedMessage], piece: Sequence[LoggedMessage]) -> int:
    """How many of the history's last messages the piece starts with."""
    for size in range(min(len(history), len(piece)), 0, -1):
        ends = [m.key() for m in history[-size:]]
        if ends == [m.key() for m in piece[:size]]:
            return size
    return 0


def merged(history: list[LoggedMessage], piece: list[LoggedMessage]) -> list[LoggedMessage]:
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

    def answer(self, message: LoggedMessage) -> bool:
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


def _notes(message: LoggedMessage) -> dict[str, JsonValue]:
    if not message.non_text_parts:
        return {}
    return {"metadata": {"non_text_parts": dict(message.non_text_parts)}}


def turns_of(messages: Sequence[LoggedMessage]) -> list[dict[str, Any]]:
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


def _matching_call(history: Sequence[LoggedMessage], use: ToolCall) -> ToolCall | None:
    calls = [call for message in history for call in message.calls]
    if use.call_id is not None:
        return next((call for call in calls if call.call_id == use.call_id), None)
    return next((c for c in calls if c.name == use.name and c.result is None), None)


def with_tool_uses(
    history: list[LoggedMessage], uses: Sequence[LoggedMessage]
) -> list[LoggedMessage]:
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


def _system_prompt(messages: Sequence[LoggedMessage]) -> str | None:
    prompts = [m.text for m in messages if m.role == "system" and m.text]
    return "\n\n".join(dict.fromkeys(prompts)) or None


def _language(turns: list[dict[str, Any]], request: ReadRequest) -> str | None:
    if request.language is not None:
        return request.language
    return language_of([t["text"] for t in turns if t["role"] == "user"])


def dialogue_item(
    path: str,
    line: int | None,
    messages: Sequence[LoggedMessage],
    request: ReadRequest,
    source: str,
    metadata: dict[str, JsonValue],
) -> Item:
    """A dialogue record of a conversation's messages, or the problem with it. The one model
    that a conversation's replies name (those with text, and those that only call tools) wrote
    the replies that name none too (a call's history names no model), so a conversation's
    earlier piece matches the start of a later one."""
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
    models = {m.model for m in messages if m.role == "assistant" and m.model}
    system = _system_prompt(messages)
    extra: dict[str, JsonValue] = {"system_prompt": system} if system else {}
    record: dict[str, Any] = {
        "language": language,
        "source": source,
        "turns": turns,
        "metadata": metadata | extra,
    }
    if len(models) == 1:
        (model,) = models
        record["participants"] = {"assistant": model}
        for turn in turns:
            if turn["role"] == "assistant":
                turn.setdefault("model", model)
    return line, record


# A conversation or a trace that nothing read touched for this many records (a log's calls, an
# OTLP file's spans, runs, observation rows, traces read whole: `log_reader`'s events) is
# complete and leaves its reader: memory stays
# bounded in a log of any length. What a later record adds to it comes out on its own: where
# calls repeat the history, a longer dialogue that the import's prefix dedupe keeps instead.
QUIET_RECORDS = 10_000
T = TypeVar("T")


class Window(Generic[T]):
    """What a reader holds open, by key, least recently touched first, with the number of the
    record that last touched it: what QUIET_RECORDS records passed by is complete."""

    def __init__(self) -> None:
        self._held: OrderedDict[str, tuple[T, int]] = OrderedDict()

    def get(self, key: str) -> T | None:
        held = self._held.get(key)
        return None if held is None else held[0]

    def touch(self, key: str, now: int, new: Callable[[], T]) -> T:
        """The value under `key` (made by `new` when there is none), touched by record `now`."""
        value = self._held[key][0] if key in self._held else new()
        self._held[key] = (value, now)
        self._held.move_to_end(key)
        return value

    def take(self, key: str) -> T:
        return self._held.pop(key)[0]

    def quiet(self, now: int) -> list[tuple[str, T]]:
        """Take out what no record touched since QUIET_RECORDS records before record `now`."""
        done = []
        while self._held:
            key, (value, touched) = next(iter(self._held.items()))
            if touched >= now - QUIET_RECORDS:
                break
            del self._held[key]
            done.append((key, value))
        return done

    def rest(self) -> list[tuple[str, T]]:
        """Take out everything, least recently touched first."""
        done = [(key, value) for key, (value, _) in self._held.items()]
        self._held.clear()
        return done


@dataclass
class _Open:
    line: int | None
    history: list[LoggedMessage] = field(default_factory=list)
    system: dict[str, LoggedMessage] = field(default_factory=dict)
    pieces: int = 0


class Conversations:
    """The conversations of a chat-completions log still open, by their id.

    Every call sends the whole history, so a call sharing no start with its conversation's
    history begins a new conversation under the same id (a user's next chat), and the one before
    is complete; a conversation no call touched for QUIET_RECORDS records is complete too, and
    should a later call go on with it, that call carries the whole history."""

    def __init__(self, path: str, request: ReadRequest, source: str) -> None:
        self.path, self.request, self.source = path, request, source
        self.open: Window[_Open] = Window()

    def add(
        self, key: str, line: int | None, messages: list[LoggedMessage], now: int
    ) -> list[Item]:
        """Add the messages of record `now`, a call; returns the conversations it completed."""
        done = [self._dialogue(k, conversation) for k, conversation in self.open.quiet(now)]
        said = [m for m in messages if m.role != "system"]
        before = self.open.get(key)
        if before is not None and said and not _common_prefix(before.history, said):
            done.append(self._dialogue(key, self.open.take(key)))
        conversation = self.open.touch(key, now, lambda: _Open(line))
        conversation.history = merged(conversation.history, said)
        for message in messages:
            if message.role == "system":
                conversation.system.setdefault(message.text, message)
        conversation.pieces += 1
        return done

    def _dialogue(self, key: str, conversation: _Open) -> Item:
        messages = [*conversation.system.values(), *conversation.history]
        about: dict[str, JsonValue] = {"conversation_id": key, "calls": conversation.pieces}
        return dialogue_item(
            self.path, conversation.line, messages, self.request, self.source, about
        )

    def rest(self) -> Iterator[Item]:
        for key, conversation in self.open.rest():
            yield self._dialogue(key, conversation)


@dataclass
class Trail:
    """What the traces of one conversation logged: each model call's messages, and the tool
    calls logged on their own."""

    line: int | None
    conversation_id: str | None = None
    trace_ids: list[str] = field(default_factory=list)
    calls: list[list[LoggedMessage]] = field(default_factory=list)
    uses: list[LoggedMessage] = field(default_factory=list)

    def messages(self) -> list[LoggedMessage]:
        """The calls in the order they began, merged into one history, with the tool uses."""
        system: dict[str, LoggedMessage] = {}
        history: list[LoggedMessage] = []
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


class Trails:
    """The conversations a log's traces make (by session, thread or conversation id), open
    until no record of a trace that names one has come for QUIET_RECORDS records: its traces
    are complete then, and it is given out. A trace naming none is a dialogue by itself, given
    out as soon as it is complete."""

    def __init__(self, path: str, request: ReadRequest, source: str) -> None:
        self.path, self.request, self.source = path, request, source
        self.open: Window[Trail] = Window()
        self.alone: list[Trail] = []

    def touch(self, conversation: str, now: int) -> None:
        """Record `now` belongs to a trace that names the conversation: it goes on."""
        self.open.touch(conversation, now, lambda: Trail(None, conversation))

    def trail(
        self, conversation: str | None, trace_id: str, line: int | None, now: int
    ) -> Trail | None:
        """The trail that a complete trace, first seen at `line`, joins (a conversation's stays
        where the trace's records touched it); None where it holds the trace already (exports
        that overlap)."""
        if conversation is None:
            trail = Trail(line)
            self.alone.append(trail)
        else:
            held = self.open.get(conversation)
            trail = held or self.open.touch(conversation, now, lambda: Trail(None, conversation))
            if trace_id in trail.trace_ids:
                return None
            trail.line = line if trail.line is None or line is None else min(trail.line, line)
        trail.trace_ids.append(trace_id)
        return trail

    def given_out(self, now: int) -> list[Item]:
        """The dialogues complete by record `now`: the lone traces, the quiet conversations."""
        done = [*self.alone, *(trail for _, trail in self.open.quiet(now) if trail.trace_ids)]
        self.alone = []
        return [trail.item(self.path, self.request, self.source) for trail in done]

    def rest(self) -> list[Item]:
        done = [*self.alone, *(trail for _, trail in self.open.rest() if trail.trace_ids)]
        self.alone = []
        return [trail.item(self.path, self.request, self.source) for trail in done]
