"""A redirect is followed within the endpoint's origin only: the configured headers (a key) and
the body never reach another origin, and the refusal says why. The same holds for LiteLLM's own
clients, whichever header its provider puts the key in."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from leaky_server import LeakyServer, leaky_server

from dialbench.llm.runner import CallFailed, Runner
from dialbench.llm.specs import ModelConfig

KEY = "k3y-for-the-bot-only"
WITH_LITELLM = pytest.mark.skipif(
    importlib.util.find_spec("litellm") is None, reason="needs dialbench[litellm]"
)


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


def through_litellm(model: str) -> Callable[[str], ModelConfig]:
    """A LiteLLM model at a base URL: `openai/...` puts the key in `Authorization`,
    `anthropic/...` in `x-api-key`."""

    def config(url: str) -> ModelConfig:
        spec = {"spec": f"litellm:{model}", "base_url": url, "api_key_env": "BOT_KEY"}
        return ModelConfig.model_validate(spec | {"max_attempts": 3})

    return config


def ask(config: ModelConfig) -> str:
    return Runner(quiet=True).model(config).chat_sync([{"role": "user", "content": "hi"}]).text


@pytest.mark.parametrize("status", [302, 307])
@pytest.mark.parametrize(
    ("model", "base_path", "asked_path"),
    [
        pytest.param(http_bot, "/v1/chat/completions", "/v1/chat/completions", id="http-bot"),
        pytest.param(judge, "/v1", "/v1/chat/completions", id="openai-compat"),
        pytest.param(
            through_litellm("openai/judge"),
            "/v1",
            "/v1/chat/completions",
            id="litellm-openai",
            marks=WITH_LITELLM,
        ),
        pytest.param(
            through_litellm("anthropic/claude-judge"),
            "",
            "/v1/messages",
            id="litellm-anthropic",
            marks=WITH_LITELLM,
        ),
    ],
)
def test_a_redirect_to_another_origin_is_refused_and_sends_it_nothing(
    endpoint: LeakyServer,
    elsewhere: LeakyServer,
    monkeypatch: pytest.MonkeyPatch,
    status: int,
    model: Callable[[str], ModelConfig],
    base_path: str,
    asked_path: str,
) -> None:
    monkeypatch.setenv("BOT_KEY", KEY)
    location = f"http://user:pa55word@127.0.0.1:{elsewhere.port}{asked_path}?token=t0ken"
    endpoint.redirects = {asked_path: (status, location)}
    with pytest.raises(CallFailed) as failed:
        ask(model(endpoint.url(base_path)))
    assert elsewhere.received == []
    [asked] = endpoint.received  # refused for good: not retried
    assert any(KEY in value for value in asked.headers.values())
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


@WITH_LITELLM
def test_litellm_follows_a_redirect_within_the_origin(
    endpoint: LeakyServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BOT_KEY", KEY)
    endpoint.redirects = {"/v1/chat/completions": (307, "/v2/chat/completions")}
    assert ask(through_litellm("openai/judge")(endpoint.url("/v1"))) == "hello"
    asked = [(r.path_qs, r.headers["Authorization"]) for r in endpoint.received]
    assert asked == [
        ("/v1/chat/completions", f"Bearer {KEY}"),
        ("/v2/chat/completions", f"Bearer {KEY}"),
    ]
