"""Tools through the LiteLLM backend, against the loopback server (where dialbench[litellm] is)."""

from __future__ import annotations

import json
from importlib.util import find_spec

import pytest
from loopback_server import Loopback

from dialbench.llm.base import ToolCall, ToolDefinition
from dialbench.llm.runner import Runner
from dialbench.llm.specs import ModelConfig

# Not imported here: the backend sets where LiteLLM's prices come from before it imports it.
pytestmark = pytest.mark.skipif(find_spec("litellm") is None, reason="dialbench[litellm]")

WEATHER = ToolDefinition(
    name="get_weather",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}},
)


def test_litellm_sends_tools_and_the_history_and_reads_calls(
    loopback: Loopback, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOOPBACK_KEY", "sk-loopback")
    spec = {"spec": "litellm:openai/loopback", "base_url": loopback.base_url}
    runner = Runner(quiet=True)
    model = runner.model(ModelConfig.model_validate(spec | {"api_key_env": "LOOPBACK_KEY"}))
    question = {"role": "user", "content": "Wetter in Köln?"}
    reply = runner.run_sync(model.chat([question], tools=[WEATHER]))
    echoed = json.dumps({"echo": "Wetter in Köln?"}, ensure_ascii=False)
    assert reply.tool_calls == [ToolCall(id="call_loopback", name="get_weather", arguments=echoed)]
    assert loopback.stats()["last_body"]["tools"] == [WEATHER.model_dump()]
    history = [
        question,
        {"role": "assistant", "content": None, "tool_calls": [reply.tool_calls[0].model_dump()]},
        {"role": "tool", "content": "Regen", "tool_call_id": "call_loopback"},
    ]
    answer = runner.run_sync(model.chat(history, tools=[WEATHER]))
    assert answer.text == "echo: Regen"
    sent = loopback.stats()["last_body"]["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "tool"]
    assert sent[1]["tool_calls"][0]["function"] == {"name": "get_weather", "arguments": echoed}
    assert sent[2]["tool_call_id"] == "call_loopback"
