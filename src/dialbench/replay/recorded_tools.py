"""A recorded dialogue's tools, as a candidate is offered them and as its calls are answered:
from the recording only. Replay never calls a real tool.

A candidate's call with the same name and arguments as a call the recorded chatbot made at that
point (its own tool turns before the reply replayed) gets the recorded result; any other call
gets `NOT_RECORDED`, and is counted. A log keeps the calls, not the tools' definitions, so each
tool's schema is derived from the arguments of its recorded calls: the keys seen, with their
JSON types.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from pydantic import JsonValue

from dialbench.hashing import canonical_json
from dialbench.llm.base import JsonSchema, ToolCall, ToolDefinition
from dialbench.schema import Turn

NOT_RECORDED = json.dumps(
    {"error": "not recorded: a replay answers only the calls the recorded chatbot made here"}
)
_JSON_TYPES = ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"))


def _json_type(value: JsonValue) -> str:
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return next((name for kind, name in _JSON_TYPES if isinstance(value, kind)), "null")


def parsed_arguments(arguments: JsonValue) -> JsonValue:
    """Arguments as a JSON value: a log's raw string parsed when it is JSON, kept otherwise."""
    if isinstance(arguments, str):
        try:
            return json.loads(arguments)  # type: ignore[no-any-return]
        except json.JSONDecodeError:
            return arguments
    return arguments


def tool_definitions(turns: Sequence[Turn]) -> tuple[ToolDefinition, ...]:
    """One definition per tool the recorded chatbot called, in order of first call."""
    properties: dict[str, dict[str, JsonSchema]] = {}
    for turn in turns:
        if turn.tool is None:
            continue
        seen = properties.setdefault(turn.tool.name, {})
        arguments = parsed_arguments(turn.tool.arguments)
        if isinstance(arguments, dict):
            for key, value in arguments.items():
                seen.setdefault(key, {"type": _json_type(value)})
    return tuple(
        ToolDefinition(
            name=name,
            description="a tool the recorded chatbot called (schema derived from its calls)",
            parameters={"type": "object", "properties": seen},
        )
        for name, seen in properties.items()
    )


def recorded_answer(call: ToolCall, recorded: Sequence[Turn]) -> str | None:
    """The recorded result of the same call among the recorded chatbot's tool turns at this
    point; None when it made no such call."""
    wanted = canonical_json([call.name, parsed_arguments(call.arguments)])
    for turn in recorded:
        if turn.tool is not None and wanted == canonical_json(
            [turn.tool.name, parsed_arguments(turn.tool.arguments)]
        ):
            return turn.text
    return None
