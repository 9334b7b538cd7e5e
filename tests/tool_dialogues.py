"""Dialogues from production logs, with tool turns between the user and the reply: an English
one (the chatbot speaks, calls a tool, then answers from its result) and a Chinese one (a call
and a retrieval before the answer), as a JSONL file `dialbench import` reads. Every test of how
a consumer treats tool turns uses these."""

from __future__ import annotations

import json
from pathlib import Path

from dialbench.schema import Dialogue, ToolUse, Turn, speaker_turns

WEATHER_EN = ToolUse(name="weather", arguments={"city": "Lisbon"}, call_id="call_1")
WEATHER_ZH = ToolUse(name="weather", arguments={"city": "北京"}, call_id="call_7")
AIR_ZH = ToolUse(name="kb_search", arguments={"query": "北京 空气质量"}, kind="retrieval")

EN = Dialogue(
    language="en",
    source="production",
    turns=[
        Turn(role="user", text="What is the weather in Lisbon?"),
        Turn(role="assistant", text="Let me check."),
        Turn(role="tool", text="21 °C, sunny", tool=WEATHER_EN),
        Turn(role="assistant", text="It is 21 °C and sunny in Lisbon."),
    ],
)
ZH = Dialogue(
    language="zh",
    source="production",
    turns=[
        Turn(role="user", text="北京今天天气怎么样？"),
        Turn(role="assistant", text="我查一下。"),
        Turn(role="tool", text="12 °C，多云", tool=WEATHER_ZH),
        Turn(role="tool", text="空气质量良好。", tool=AIR_ZH),
        Turn(role="assistant", text="北京今天12度，多云，空气质量良好。"),
    ],
)
TOOL_DIALOGUES = (EN, ZH)
# Where each dialogue's chatbot speaks: what judges, metrics and annotators are about.
ASSISTANT_TURNS = {EN.id: [1, 3], ZH.id: [1, 4]}
TOOL_LINES = {
    EN.id: ['[2] Tool call weather({"city": "Lisbon"}) returned: 21 °C, sunny'],
    ZH.id: [
        '[2] Tool call weather({"city": "北京"}) returned: 12 °C，多云',
        "[3] Retrieved context (kb_search): 空气质量良好。",
    ],
}


def without_tools(dialogue: Dialogue) -> Dialogue:
    """The same dialogue as a two-speaker log would hold it: its tool turns dropped."""
    return Dialogue(language=dialogue.language, turns=speaker_turns(dialogue.turns))


def write_jsonl(path: Path, dialogues: tuple[Dialogue, ...] = TOOL_DIALOGUES) -> Path:
    """The dialogues as JSONL lines, as `dialbench export` writes them."""
    lines = [json.dumps(d.model_dump(mode="json"), ensure_ascii=False) for d in dialogues]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
