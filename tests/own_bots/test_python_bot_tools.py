"""A `python:` bot offered tools: it sees them and the history's calls and results, and answers
with calls instead of text."""

from __future__ import annotations

import json

from dialbench.llm.base import Conversation, ToolCall, ToolDefinition
from dialbench.llm.runner import Runner
from tests.own_bots.conftest import WriteBot, module

TOOL_BOT = """
    from dialbench.llm.bots import BotReply
    from dialbench.llm.base import ToolCall

    SEEN = []

    def reply(request):
        SEEN.append(request)
        last = request.messages[-1]
        if last.role == "tool":
            return f"Laut Dienst: {last.content}"
        call = {
            "id": "call_a",
            "type": "function",
            "function": {"name": request.tools[0].name, "arguments": {"stadt": "Köln"}},
        }
        if request.conversation_id == "as-dict":
            return {"tool_calls": [call]}
        return BotReply(tool_calls=[ToolCall.model_validate(call)])
"""
WEATHER = ToolDefinition(
    name="wetter",
    description="Das Wetter einer Stadt",
    parameters={"type": "object", "properties": {"stadt": {"type": "string"}}},
)
CALL = ToolCall(
    id="call_a", name="wetter", arguments=json.dumps({"stadt": "Köln"}, ensure_ascii=False)
)


def test_a_python_bot_calls_tools_and_reads_their_results(write_bot: WriteBot) -> None:
    name, spec = write_bot(TOOL_BOT)
    runner = Runner(quiet=True)
    bot = runner.model(spec)
    assert bot.takes_tools
    question = {"role": "user", "content": "Wie wird das Wetter in Köln?"}
    reply = runner.run_sync(bot.chat([question], tools=[WEATHER]))
    assert (reply.text, reply.tool_calls, reply.finish_reason) == ("", [CALL], "tool_calls")
    history = [
        question,
        {"role": "assistant", "content": None, "tool_calls": [CALL.model_dump()]},
        {"role": "tool", "content": "Regen, 12 °C", "tool_call_id": "call_a"},
    ]
    answer = runner.run_sync(bot.chat(history, tools=[WEATHER]))
    assert (answer.text, answer.tool_calls) == ("Laut Dienst: Regen, 12 °C", [])
    first, second = module(name).SEEN
    assert first.tools == second.tools == (WEATHER,)
    assert second.messages[1].tool_calls == (CALL,)
    assert second.messages[2].tool_call_id == "call_a"


def test_a_python_bot_may_answer_its_calls_as_a_dict(write_bot: WriteBot) -> None:
    _, spec = write_bot(TOOL_BOT)
    runner = Runner(quiet=True)
    bot = runner.model(spec)
    asked = bot.chat(
        [{"role": "user", "content": "Wetter?"}],
        tools=[WEATHER],
        conversation=Conversation(id="as-dict"),
    )
    assert runner.run_sync(asked).tool_calls == [CALL]
