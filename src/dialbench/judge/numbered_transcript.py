"""Dialogues as the plain text judges read: one numbered line per turn, USER or CHATBOT, and a
tool turn as what was called and what it returned; turns a protocol points the judge at (the
replay protocol's: where two versions of a conversation differ) can be marked `>> `.

A tool's result can be a whole web page or a table: a result over `TOOL_RESULT_MAX_CHARS`
characters (arguments over `TOOL_ARGUMENTS_MAX_CHARS`) is cut there and says so, with its full
length, so one call cannot crowd the dialogue out of a judge's context window.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from dialbench.schema import ToolUse, Turn

SPEAKERS = {"user": "USER", "assistant": "CHATBOT"}
TOOL_RESULT_MAX_CHARS = 2000
TOOL_ARGUMENTS_MAX_CHARS = 500
NO_RESULT = "(no result in the log)"
MARK = ">> "


def _cut(text: str, limit: int) -> str:
    """`text`, or its first `limit` characters and a note of its whole length."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [cut at {limit:,} of {len(text):,} characters]"


def _tool_line(tool: ToolUse, returned: str) -> str:
    """`Tool call NAME(ARGUMENTS) returned: RESULT`, or `Retrieved context (NAME): RESULT`."""
    result = _cut(returned, TOOL_RESULT_MAX_CHARS) or NO_RESULT
    if tool.kind == "retrieval":
        return f"Retrieved context ({tool.name}): {result}"
    arguments = _cut(tool.shown_arguments(), TOOL_ARGUMENTS_MAX_CHARS)
    return f"Tool call {tool.name}({arguments}) returned: {result}"


def _line(turn: Turn) -> str:
    if turn.tool is not None:
        return _tool_line(turn.tool, turn.text)
    return f"{SPEAKERS[turn.role]}: {turn.text}"


def numbered_transcript(turns: Sequence[Turn], marked: Collection[int] = ()) -> str:
    """Turn numbers match `Target.turn_index`, so a judge's comment can point at a turn; tool
    turns are numbered like the others, so every number is the turn's index in the dialogue.
    The lines of the `marked` turns start with `MARK`."""
    return "\n".join(f"{MARK if i in marked else ''}[{i}] {_line(t)}" for i, t in enumerate(turns))
