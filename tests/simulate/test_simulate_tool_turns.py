"""Tool turns never reach the simulated user, the validator judging its turns, or a chatbot
continuing a dialogue: each sees the two sides' utterances, as a person would."""

from __future__ import annotations

import asyncio

import pytest
from simulate_scripted import CONTEXT, agents, request_text, scripted

from dialbench.llm.runner import Runner
from dialbench.schema import Turn
from dialbench.simulate.config import Form
from dialbench.simulate.transcript import render_transcript
from tests.tool_dialogues import EN, TOOL_DIALOGUES, ZH, without_tools

# What only the tool turns hold: their results, arguments and names.
TOOL_ONLY = ("21 °C, sunny", "12 °C，多云", '"city"', "kb_search")


def test_the_transcript_agents_read_is_the_one_without_tool_turns() -> None:
    for d in TOOL_DIALOGUES:
        assert render_transcript(d.turns) == render_transcript(without_tools(d).turns)
    assert (
        render_transcript(ZH.turns).splitlines()[-1]
        == "CHATBOT: 北京今天12度，多云，空气质量良好。"
    )


@pytest.mark.parametrize("form", ["chat", "transcript"])
def test_the_user_and_the_validator_never_see_a_tool_turn(form: Form) -> None:
    user = scripted("user", lambda _: "Thanks, that helps!")
    validator = scripted("validator", lambda _: "Yes.")
    bot = scripted("bot", lambda _: "You're welcome.")
    user_agent, judge, _ = agents(Runner(None, quiet=True), user, validator, bot, form=form)
    assert judge is not None
    for d in TOOL_DIALOGUES:
        written = asyncio.run(user_agent.write(CONTEXT, d.turns))
        attempt = asyncio.run(judge.judge(CONTEXT, d.turns, written))
        assert (written, attempt.verdict) == ("Thanks, that helps!", "accepted")
    seen = [request_text(r) for r in (*user.requests, *validator.requests)]
    assert len(seen) == 4
    assert not any(hidden in text for text in seen for hidden in TOOL_ONLY)
    assert "It is 21 °C and sunny in Lisbon." in request_text(user.requests[0])


def test_a_chatbot_continuing_a_dialogue_gets_the_utterances_only() -> None:
    bot = scripted("bot", lambda _: "Gern geschehen.")
    _, _, loop = agents(Runner(None, quiet=True), bot, None, bot)
    history = [*EN.turns, Turn(role="user", text="Thanks!")]
    reply = asyncio.run(loop.chatbot.reply(history))
    assert (reply.role, reply.text) == ("assistant", "Gern geschehen.")
    [request] = bot.requests
    assert [m.role for m in request.messages] == [
        "system",
        "user",
        "assistant",
        "assistant",
        "user",
    ]
    assert not any(hidden in m.content for m in request.messages for hidden in TOOL_ONLY)
