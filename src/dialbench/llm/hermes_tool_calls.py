"""Tool calls written in a reply's text, as Hermes-style chat templates (Qwen2.5's) teach a
model to write them: `<tool_call>\\n{"name": ..., "arguments": {...}}\\n</tool_call>`.

A model run in-process (llama.cpp) has no server to read its calls out of its text, so this
does: each block that holds a call becomes a `ToolCall`, and the rest of the text is the reply's
content. A block that is not one (malformed JSON, no name, a reply cut inside it) stays in the
text, so what the model wrote is never lost. Small models taught this template often drop the
tags (Qwen2.5-Coder 0.5B writes the bare JSON, or fences it as ```json): a reply that is
nothing but one such call to an offered tool is read as that call.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection

from dialbench.llm.base import ToolCall

TOOL_CALL_BLOCK = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)
UNTAGGED_CALL = re.compile(r"\A\s*(?:```(?:json)?\s*)?(\{.*\})\s*(?:```)?\s*\Z", re.DOTALL)


def _call(block: str, index: int) -> ToolCall | None:
    try:
        written = json.loads(block)
    except json.JSONDecodeError:
        return None
    if not isinstance(written, dict) or not isinstance(written.get("name"), str):
        return None
    arguments = written.get("arguments", {})
    return ToolCall.model_validate(
        {"id": f"call_{index}", "name": written["name"], "arguments": arguments}
    )


def split_tool_calls(text: str, offered: Collection[str] = ()) -> tuple[str, list[ToolCall]]:
    """The text without its call blocks (stripped), and the calls, with the ids `call_0`,
    `call_1`, ... in order; the text unchanged where it holds no call. `offered`: the tools'
    names, for a reply that is one untagged call."""
    untagged = UNTAGGED_CALL.match(text) if offered and "<tool_call>" not in text else None
    if untagged and (call := _call(untagged.group(1), 0)) is not None and call.name in offered:
        return "", [call]
    calls: list[ToolCall] = []

    def taken(match: re.Match[str]) -> str:
        call = _call(match.group(1), len(calls))
        if call is None:
            return match.group(0)
        calls.append(call)
        return ""

    rest = TOOL_CALL_BLOCK.sub(taken, text)
    return (rest.strip(), calls) if calls else (text, calls)
