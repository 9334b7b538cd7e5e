"""Chat requests with tools: the records' wire shape, the cache keys that must not move, the
OpenAI-compatible backend against the loopback server, the cache, scripted models, and the
calls a local model writes in its text (Hermes/Qwen blocks)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from loopback_server import Loopback
from pydantic import ValidationError

from dialbench.llm.backends.local import _read_tool_calls, template_message
from dialbench.llm.backends.scripted import ScriptedAPI, register_script
from dialbench.llm.base import (
    Completion,
    GenerationParams,
    Message,
    Request,
    ToolCall,
    ToolDefinition,
)
from dialbench.llm.cache import cache_key
from dialbench.llm.hermes_tool_calls import split_tool_calls
from dialbench.llm.openai_format import completion_from_response
from dialbench.llm.runner import Runner

WEATHER = ToolDefinition(
    name="get_weather",
    description="Current weather in a city",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}},
)
WEATHER_WIRE = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather in a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}
CALL = ToolCall(id="call_7", name="get_weather", arguments='{"city": "北京"}')
CALL_WIRE = {
    "id": "call_7",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city": "北京"}'},
}
# A request as chats were made before tools existed, and its cache key then (computed by the
# code of that time): it must not move.
PLAIN_REQUEST = Request(
    kind="chat",
    messages=(
        Message(role="system", content="Sei kurz."),
        Message(role="user", content="北京的天气怎么样？"),
        Message(role="assistant", content="Sonnig."),
    ),
    params=GenerationParams(max_tokens=32, stop=("\n",)),
    sample=1,
)
PLAIN_KEY = "e85dd146b92d9b242b277e2785149460592ed4b7fc8a394188d918eab6cd3fb6"


def test_a_request_without_tools_dumps_and_keys_as_before() -> None:
    assert PLAIN_REQUEST.messages[1].model_dump() == {
        "role": "user",
        "content": "北京的天气怎么样？",
    }
    assert "tools" not in PLAIN_REQUEST.model_dump(mode="json")
    assert cache_key("openai-compat:http://127.0.0.1:1/v1#m", PLAIN_REQUEST) == PLAIN_KEY
    with_tools = PLAIN_REQUEST.model_copy(update={"tools": (WEATHER,)})
    assert cache_key("openai-compat:http://127.0.0.1:1/v1#m", with_tools) != PLAIN_KEY


def test_tool_calls_and_results_dump_in_the_openai_shape() -> None:
    asked = Message(role="assistant", content="", tool_calls=(CALL,))
    answered = Message(role="tool", content='{"sky": "sonnig"}', tool_call_id="call_7")
    request = Request(kind="chat", messages=(asked, answered), tools=(WEATHER,))
    dumped = request.model_dump(mode="json")
    assert dumped["messages"] == [
        {"role": "assistant", "content": None, "tool_calls": [CALL_WIRE]},
        {"role": "tool", "content": '{"sky": "sonnig"}', "tool_call_id": "call_7"},
    ]
    assert dumped["tools"] == [WEATHER_WIRE]
    assert Request.model_validate(dumped) == request
    said = Message(role="assistant", content="Moment.", tool_calls=(CALL,))
    assert said.model_dump(mode="json")["content"] == "Moment."


def test_records_are_read_from_the_openai_shape() -> None:
    assert ToolDefinition.model_validate(WEATHER_WIRE) == WEATHER
    assert ToolCall.model_validate(CALL_WIRE) == CALL
    as_object = CALL_WIRE | {"function": {"name": "get_weather", "arguments": {"city": "北京"}}}
    assert json.loads(ToolCall.model_validate(as_object).arguments) == {"city": "北京"}
    assert "北京" in ToolCall.model_validate(as_object).arguments  # not \\u escapes
    message = Message.model_validate(
        {"role": "assistant", "content": None, "tool_calls": [CALL_WIRE]}
    )
    assert message == Message(role="assistant", content="", tool_calls=(CALL,))


@pytest.mark.parametrize(
    "fields",
    [
        {"role": "user", "content": "hi", "tool_calls": [CALL_WIRE]},
        {"role": "tool", "content": "sunny"},
        {"role": "user", "content": "hi", "tool_call_id": "call_7"},
        {"role": "tool", "content": "sunny", "tool_call_id": ""},
    ],
    ids=["calls-on-user", "tool-without-id", "id-on-user", "empty-id"],
)
def test_tool_fields_only_where_they_belong(fields: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        Message.model_validate(fields)


def test_completions_cached_before_tools_still_load() -> None:
    old = '{"text": "hi", "finish_reason": "stop", "usage": {"prompt_tokens": 1}}'
    assert Completion.model_validate_json(old).tool_calls == []
    new = Completion(text="", tool_calls=[CALL])
    assert Completion.model_validate_json(new.model_dump_json()) == new


def test_openai_compat_sends_tools_and_reads_calls(loopback: Loopback) -> None:
    model = Runner(quiet=True).model(loopback.spec())
    assert model.takes_tools
    question = [{"role": "user", "content": "Wie ist das Wetter in München?"}]
    reply = model.runner.run_sync(model.chat(question, tools=[WEATHER]))
    assert reply.text == ""
    assert reply.finish_reason == "tool_calls"
    echoed = json.dumps({"echo": "Wie ist das Wetter in München?"}, ensure_ascii=False)
    assert reply.tool_calls == [ToolCall(id="call_loopback", name="get_weather", arguments=echoed)]
    body = loopback.stats()["last_body"]
    assert body["tools"] == [WEATHER_WIRE]

    history = [
        *question,
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [c.model_dump() for c in reply.tool_calls],
        },
        {"role": "tool", "content": "Föhn, 24 °C", "tool_call_id": "call_loopback"},
    ]
    answer = model.runner.run_sync(model.chat(history, tools=[WEATHER]))
    assert (answer.text, answer.tool_calls) == ("echo: Föhn, 24 °C", [])
    sent = loopback.stats()["last_body"]["messages"]
    assert sent[1:] == [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_loopback",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": echoed},
                }
            ],
        },
        {"role": "tool", "content": "Föhn, 24 °C", "tool_call_id": "call_loopback"},
    ]


def test_a_call_without_id_and_with_object_arguments(loopback: Loopback) -> None:
    model = Runner(quiet=True).model(loopback.spec("arguments-as-object"))
    reply = model.runner.run_sync(
        model.chat([{"role": "user", "content": "天气"}], tools=[WEATHER])
    )
    [call] = reply.tool_calls
    assert (call.id, call.name, json.loads(call.arguments)) == (
        "call_0",
        "get_weather",
        {"echo": "天气"},
    )


def test_a_second_identical_call_is_answered_from_the_cache(
    loopback: Loopback, tmp_path: Path
) -> None:
    def ask() -> tuple[Completion, int, int]:
        with Runner(tmp_path, quiet=True) as runner:
            model = runner.model(loopback.spec())
            reply = runner.run_sync(
                model.chat([{"role": "user", "content": "Wetter?"}], tools=[WEATHER])
            )
            [line] = runner.usage()
            return reply, line.calls, line.cached_calls

    first, calls, cached = ask()
    assert (calls, cached) == (1, 0)
    again, calls, cached = ask()
    assert (calls, cached, again.cached) == (0, 1, True)
    assert again.tool_calls == first.tool_calls != []
    assert loopback.requests() == 1


def test_a_scripted_model_calls_tools_through_the_runner(tmp_path: Path) -> None:
    def script(request: Request) -> Completion:
        assert request.tools == (WEATHER,)
        return Completion(text="", tool_calls=[CALL], finish_reason="tool_calls")

    spec = register_script("calls-weather", script)
    with Runner(tmp_path, quiet=True) as runner:
        model = runner.model(spec)
        reply = runner.run_sync(
            model.chat([{"role": "user", "content": "Wetter?"}], tools=[WEATHER])
        )
        assert reply.tool_calls == [CALL]
        cached = runner.run_sync(
            model.chat([{"role": "user", "content": "Wetter?"}], tools=[WEATHER])
        )
        assert (cached.cached, cached.tool_calls) == (True, [CALL])


def test_a_backend_that_takes_no_tools_is_sent_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ScriptedAPI, "takes_tools", False)
    seen: list[Request] = []
    spec = register_script("no-tools", lambda request: seen.append(request) or "Sonnig.")
    model = Runner(quiet=True).model(spec)
    assert not model.takes_tools
    model.runner.run_sync(model.chat([{"role": "user", "content": "Wetter?"}], tools=[WEATHER]))
    assert seen[0].tools == ()


def test_calls_written_in_a_reply_are_read_out_of_it() -> None:
    reply = (
        "Ich sehe nach.\n<tool_call>\n"
        '{"name": "get_weather", "arguments": {"city": "Köln", "note": "Straße"}}\n'
        "</tool_call>\n<tool_call>\n"
        '{"name": "get_weather", "arguments": {"city": "广州"}}\n</tool_call>'
    )
    text, calls = split_tool_calls(reply)
    assert text == "Ich sehe nach."
    assert [c.id for c in calls] == ["call_0", "call_1"]
    assert [json.loads(c.arguments) for c in calls] == [
        {"city": "Köln", "note": "Straße"},
        {"city": "广州"},
    ]
    assert "广州" in calls[1].arguments


@pytest.mark.parametrize(
    "reply",
    [
        "Kein Werkzeug nötig.",
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Köln"\n</tool_call>',
        '<tool_call>\n{"arguments": {}}\n</tool_call>',
        '<tool_call>\n{"name": "get_weather", "arguments": {}}',
    ],
    ids=["no-block", "malformed-json", "no-name", "cut-off"],
)
def test_what_is_no_call_stays_text(reply: str) -> None:
    assert split_tool_calls(reply) == (reply, [])


@pytest.mark.parametrize(
    "reply",
    [
        '{"name": "get_weather", "arguments": {"city": "北京"}}',
        '```json\n{"name": "get_weather", "arguments": {"city": "北京"}}\n```',
    ],
    ids=["bare", "fenced"],
)
def test_a_reply_that_is_one_untagged_call_to_an_offered_tool_is_that_call(reply: str) -> None:
    text, calls = split_tool_calls(reply, {"get_weather"})
    assert text == ""
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [("get_weather", {"city": "北京"})]
    # Not offered, or more than the call: what the model wrote stays its text.
    assert split_tool_calls(reply, {"book_flight"}) == (reply, [])
    assert split_tool_calls(reply) == (reply, [])
    assert split_tool_calls(f"Sure! {reply}", {"get_weather"}) == (f"Sure! {reply}", [])


def test_a_malformed_block_stays_beside_a_good_one() -> None:
    bad = '<tool_call>\n{"name": "get_weather", arguments: {}}\n</tool_call>'
    good = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "上海"}}\n</tool_call>'
    text, calls = split_tool_calls(f"{bad}\n{good}")
    assert text == bad
    assert [(c.id, json.loads(c.arguments)) for c in calls] == [("call_0", {"city": "上海"})]


def test_a_local_reply_with_calls_becomes_a_completion_with_them() -> None:
    content = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Zürich"}}\n</tool_call>'
    response = {"choices": [{"message": {"role": "assistant", "content": content}}]}
    _read_tool_calls(response, {"get_weather"})
    completion = completion_from_response(response, 0.1, chat=True)
    assert completion.text == ""
    assert completion.finish_reason == "tool_calls"
    assert completion.tool_calls == [
        ToolCall(id="call_0", name="get_weather", arguments='{"city": "Zürich"}')
    ]


def test_a_chat_template_is_given_arguments_as_an_object() -> None:
    """Qwen's template writes them with `tojson`: JSON text would be quoted twice."""
    message = Message(role="assistant", content="", tool_calls=(CALL,))
    shown = template_message(message)
    assert shown["content"] == ""
    assert shown["tool_calls"][0]["function"]["arguments"] == {"city": "北京"}
    odd = Message(
        role="assistant", content="", tool_calls=(CALL.model_copy(update={"arguments": "x"}),)
    )
    assert template_message(odd)["tool_calls"][0]["function"]["arguments"] == "x"
