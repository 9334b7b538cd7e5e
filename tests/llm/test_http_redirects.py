"""A redirect is followed within the endpoint's origin only: the configured headers (a key) and
the body never reach another origin, and the refusal says why."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from leaky_server import LeakyServer, leaky_server

from dialbench.llm.runner import CallFailed, Runner
from dialbench.llm.specs import ModelConfig

KEY = "k3y-for-the-bot-only"


@pytest.fixture
def endpoint() -> Iterator[LeakyServer]:
    with leaky_server() as server:
        yield server


@pytest.fixture
def elsewhere() -> Iterator[LeakyServer]:
    """Another origin: the same host on another port."""
    with leaky_server() as server:
        yield server


def http_bot(url: str, **fields: Any) -> ModelConfig:
    return ModelConfig.model_validate(
        {
            "spec": "http:bot",
            "http": {
                "url": url,
                "headers": {"X-Api-Key": "${BOT_KEY}"},
                "body": {"message": "{{last_user_message}}"},
                "reply_path": "reply.text",
            },
            "max_attempts": 3,
            **fields,
        }
    )


def judge(url: str) -> ModelConfig:
    return ModelConfig(spec=f"openai-compat:{url}#judge", api_key_env="BOT_KEY", max_attempts=3)


def ask(config: ModelConfig) -> str:
    return Runner(quiet=True).model(config).chat_sync([{"role": "user", "content": "hi"}]).text


@pytest.mark.parametrize("status", [302, 307])
@pytest.mark.parametrize("model", [http_bot, judge], ids=["http-bot", "openai-compat"])
def test_a_redirect_to_another_origin_is_refused_and_sends_it_nothing(
    endpoint: LeakyServer,
    elsewhere: LeakyServer,
    monkeypatch: pytest.MonkeyPatch,
    status: int,
    model: Callable[[str], ModelConfig],
) -> None:
    monkeypatch.setenv("BOT_KEY", KEY)
    location = f"http://user:pa55word@127.0.0.1:{elsewhere.port}/v1/chat/completions?token=t0ken"
    endpoint.redirects = {"/v1/chat/completions": (status, location)}
    url = endpoint.url("/v1/chat/completions" if model is http_bot else "/v1")
    with pytest.raises(CallFailed) as failed:
        ask(model(url))
    assert elsewhere.received == []
    assert len(endpoint.received) == 1  # refused for good: not retried
    assert str(failed.value).endswith(
        f"refused a redirect from {endpoint.url()} to {elsewhere.url()}: configured headers "
        "are never sent to another origin (after 1 attempt(s))"
    )
    assert not {"pa55word", "t0ken", "user"} & set(str(failed.value).replace(":", " ").split())


def test_a_redirect_within_the_origin_is_followed_as_its_status_says(
    endpoint: LeakyServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 307 sends the same request again, a 303 a GET without the body; the key goes along,
    to the same origin."""
    monkeypatch.setenv("BOT_KEY", KEY)
    endpoint.redirects = {"/chat": (307, "/moved"), "/moved": (303, endpoint.url("/answer"))}
    assert ask(http_bot(endpoint.url("/chat"))) == "hello"
    asked = [(r.method, r.path_qs, r.body, r.headers["X-Api-Key"]) for r in endpoint.received]
    assert asked == [
        ("POST", "/chat", '{"message":"hi"}', KEY),
        ("POST", "/moved", '{"message":"hi"}', KEY),
        ("GET", "/answer", "", KEY),
    ]


def test_redirects_in_a_circle_end_the_call(
    endpoint: LeakyServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BOT_KEY", KEY)
    endpoint.redirects = {"/chat": (302, "/chat")}
    with pytest.raises(CallFailed, match=r"more than 5 redirects from http://127\.0\.0\.1:\d+ "):
        ask(http_bot(endpoint.url("/chat"), max_attempts=1))
    assert len(endpoint.received) == 6
