"""Tools through the packaged 0.5B model's own chat template (llama.cpp, in-process).

The model does not reliably write `<tool_call>` blocks (it often writes the call's JSON bare),
so what is checked is what is deterministic: the prompt it was given held the tools, the
earlier call with its arguments as an object, and the tool's result, and its reply came back
as a completion. Reading calls out of a reply is `test_tool_calls.py`'s.
"""

from __future__ import annotations

import asyncio

import pytest

from dialbench.llm.backends.local import LocalAPI
from dialbench.llm.base import GenerationParams, Message, Request, ToolCall, ToolDefinition
from dialbench.llm.specs import ModelConfig

pytestmark = pytest.mark.slow
LOCAL = "local:qwen2.5-0.5b"  # the context test_llm_local.py's tests load: loaded once
WEATHER = ToolDefinition(
    name="get_weather",
    description="Current weather in a city",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}},
)


def test_the_template_renders_tools_calls_and_results() -> None:
    api = LocalAPI(ModelConfig(spec=LOCAL))
    assert api.takes_tools
    assert not LocalAPI(ModelConfig(spec=LOCAL, chat_format="chatml")).takes_tools
    request = Request(
        kind="chat",
        messages=(
            Message(role="user", content="Wie ist das Wetter in Köln und in 北京?"),
            Message(
                role="assistant",
                content="",
                tool_calls=(
                    ToolCall(id="call_0", name="get_weather", arguments='{"city": "Köln"}'),
                ),
            ),
            Message(role="tool", content='{"sky": "Regen"}', tool_call_id="call_0"),
        ),
        params=GenerationParams(max_tokens=8),
        tools=(WEATHER,),
    )
    reply = asyncio.run(api.generate(request))
    llama = api.context().llama
    seen = llama.detokenize(list(llama.input_ids[: llama.n_tokens]), special=True).decode()
    assert '<tools>\n{"type": "function", "function": {"name": "get_weather"' in seen
    assert (
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Köln"}}\n</tool_call>' in seen
    )
    assert '<tool_response>\n{"sky": "Regen"}\n</tool_response>' in seen
    assert reply.text or reply.tool_calls
    assert 0 < reply.usage.completion_tokens <= 8
