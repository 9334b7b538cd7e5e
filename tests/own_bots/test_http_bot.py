"""`http:NAME` as the chatbot: the body template, keys from the environment, a session per
dialogue that a killed run's resumption does not replay into, and HTTP failures."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dialbench.errors import DialbenchError
from dialbench.llm.http_bot import read_reply, render_body
from dialbench.llm.preflight import ModelsUnavailable, check_models
from dialbench.llm.runner import CallFailed, Runner
from dialbench.llm.specs import ModelConfig
from dialbench.schema import Dialogue
from dialbench.simulate import load_config, simulate
from dialbench.store import RunStore
from tests.own_bots.bot_server import BotServer
from tests.own_bots.conftest import config, user_script

KEY = "s3cret-key-value"


@pytest.fixture
def server() -> Iterator[BotServer]:
    running = BotServer().start()
    yield running
    running.stop()


def http_bot(server: BotServer, *, stateful: bool, **fields: Any) -> dict[str, Any]:
    body = (
        {
            "session": "{{session_id}}",
            "message": "{{last_user_message}}",
            "language": "{{language}}",
        }
        if stateful
        else {
            "messages": "{{messages}}",
            "language": "{{language}}",
            "message": "{{last_user_message}}",
        }
    )
    return {
        "spec": "http:faq",
        "http": {
            "url": server.url,
            "headers": {"X-Api-Key": "${FAQ_BOT_KEY}"},
            "body": body,
            "reply_path": "reply.text",
        },
        "stateful": stateful,
        "max_attempts": 1,
        **fields,
    }


def test_a_stateful_bot_gets_one_session_per_dialogue_and_the_new_message_only(
    server: BotServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAQ_BOT_KEY", KEY)
    simulate(config(user_script(), http_bot(server, stateful=True)), tmp_path / "run", quiet=True)
    with RunStore.open(tmp_path / "run") as store:
        dialogues = list(store.records(Dialogue))
        stored_run = store.invocations()[0]
    sessions = [d.metadata["chatbot_session"] for d in dialogues]
    assert len(set(sessions)) == 4
    for dialogue, session in zip(dialogues, sessions, strict=True):
        assert session.startswith(dialogue.id)
        assert dialogue.participants.assistant == "http:faq"
        user_turns = [t.text for t in dialogue.turns if t.role == "user"][:2]
        assert server.sessions[session] == user_turns  # the new message alone, in order
        assert dialogue.turns[1].text == f"Reply 1 in {dialogue.language}"
    assert {h["X-Api-Key"] for h in server.headers} == {KEY}
    assert "${FAQ_BOT_KEY}" in str(stored_run.config)
    assert KEY not in str(stored_run.config)


def test_a_stateful_dialogue_left_unfinished_restarts_in_a_new_session(
    server: BotServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first run's bot fails at the second turn (a killed run leaves the same: the calls so
    far cached, the dialogue not stored). The next run plays the dialogue again in a new
    session from its first turn, asking the bot again, rather than replaying cached answers
    into a session that never heard them."""
    monkeypatch.setenv("FAQ_BOT_KEY", KEY)
    user = user_script()
    setup = config(user, http_bot(server, stateful=True), languages=["en"], seeds={"contexts": 1})
    server.fail_from_turn = 2
    first = simulate(setup, tmp_path / "run", quiet=True)
    assert first.end_reasons == {"error": 1}
    [(lost, heard)] = server.sessions.items()
    assert len(heard) == 1
    server.fail_from_turn = None
    second = simulate(setup, tmp_path / "run", quiet=True)
    assert second.end_reasons == {"turn_cap": 1}
    with RunStore.open(tmp_path / "run") as store:
        [dialogue] = store.records(Dialogue)
    session = dialogue.metadata["chatbot_session"]
    assert session != lost
    assert server.sessions[session] == [t.text for t in dialogue.turns if t.role == "user"]
    assert server.sessions[session][0] == heard[0]  # asked again, not replayed from the cache


def ask(config: dict[str, Any], text: str = "When are you open?") -> str:
    runner = Runner(quiet=True)
    model = runner.model(ModelConfig.model_validate(config), "assistant")
    return model.chat_sync([{"role": "user", "content": text}]).text


def test_a_stateless_bot_gets_the_whole_dialogue(
    server: BotServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAQ_BOT_KEY", KEY)
    assert ask(http_bot(server, stateful=False)) == "Reply 1 in None"
    assert server.bodies == [
        {
            "messages": [{"role": "user", "content": "When are you open?"}],
            "language": None,
            "message": "When are you open?",
        }
    ]


@pytest.mark.parametrize(
    ("message", "fields", "answer"),
    [
        ("[[500]] hello", {"max_attempts": 2}, "Reply 1 in "),
        ("[[429]] hello", {"max_attempts": 2}, "Reply 1 in "),
        ("[[noreply]]", {}, 'no reply at \'reply.text\' in the response: {"status":"thinking"'),
        ("[[slow]]", {"timeout_s": 0.3}, "no reply within 0.3s"),
        ("[[down]]", {"max_attempts": 2}, "HTTP 500: down (after 2 attempt(s))"),
    ],
    ids=["5xx-retried", "429-retried", "no-reply", "timeout", "5xx-for-good"],
)
def test_http_failures_are_retried_or_recorded_as_for_openai_compat(
    server: BotServer,
    monkeypatch: pytest.MonkeyPatch,
    message: str,
    fields: dict[str, Any],
    answer: str,
) -> None:
    monkeypatch.setenv("FAQ_BOT_KEY", KEY)
    try:
        said = ask(http_bot(server, stateful=True, **fields), message)
    except CallFailed as failure:
        said = str(failure)
    assert said.startswith(answer) or answer in said, said


def test_a_key_variable_that_is_not_set_is_an_error_before_any_call(
    server: BotServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("FAQ_BOT_KEY", raising=False)
    with pytest.raises(DialbenchError, match="environment variable FAQ_BOT_KEY is not set"):
        ask(http_bot(server, stateful=True))
    assert server.bodies == []


def test_a_body_template_with_an_unknown_placeholder_is_reported_at_its_line(
    tmp_path: Path,
) -> None:
    path = tmp_path / "simulate.yaml"
    path.write_text(
        "languages: [en]\n"
        "chatbots:\n"
        "  models:\n"
        "    - spec: http:faq\n"
        "      http:\n"
        "        url: http://127.0.0.1:8765/chat\n"
        "        body: {text: '{{last_message}}'}\n"
        "        reply_path: reply\n",
        encoding="utf-8",
    )
    with pytest.raises(
        DialbenchError, match=r"simulate.yaml:7: .*unknown placeholder \{\{last_message\}\}"
    ):
        load_config(path)


def test_the_body_template_and_the_reply_path() -> None:
    values: dict[str, Any] = {"messages": [{"role": "user", "content": "hi"}], "language": "de"}
    template = {"history": "{{messages}}", "meta": ["lang={{ language }}", 3, None]}
    assert render_body(template, values) == {
        "history": [{"role": "user", "content": "hi"}],
        "meta": ["lang=de", 3, None],
    }
    rasa = [{"recipient_id": "s", "text": "Hallo!"}, {"recipient_id": "s", "text": "Wie geht's?"}]
    assert read_reply(rasa, "*.text") == "Hallo!\nWie geht's?"
    assert read_reply(rasa, "0.text") == "Hallo!"
    assert (
        read_reply({"choices": [{"message": {"content": "ok"}}]}, "choices.-1.message.content")
        == "ok"
    )
    assert read_reply({"reply": {"text": 3}}, "reply.text") is None
    assert read_reply({"reply": []}, "reply.*") is None


def test_a_bot_whose_service_is_down_is_found_before_any_call(
    server: BotServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAQ_BOT_KEY", KEY)
    bot = http_bot(server, stateful=True)
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        bot["http"]["url"] = f"http://127.0.0.1:{probe.getsockname()[1]}/chat"
    with pytest.raises(ModelsUnavailable, match="http:faq: cannot connect to"):
        check_models(ModelConfig.model_validate(bot))
