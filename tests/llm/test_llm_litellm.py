"""The optional LiteLLM backend against the loopback server (runs where dialbench[litellm] is)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from loopback_server import Loopback

from dialbench.llm.runner import CallFailed, Runner
from dialbench.llm.specs import ModelConfig

pytest.importorskip("litellm")


def config(loopback: Loopback, **fields: object) -> ModelConfig:
    return ModelConfig.model_validate(
        {
            "spec": "litellm:openai/loopback",
            "base_url": loopback.base_url,
            "api_key_env": "LOOPBACK_KEY",
            **fields,
        }
    )


def test_litellm_chat_complete_and_retries(
    loopback: Loopback, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOOPBACK_KEY", "sk-loopback")
    runner = Runner(quiet=True, jitter_seed=0)
    model = runner.model(config(loopback, max_attempts=3))
    assert model.spec == f"litellm:openai/loopback@{loopback.base_url}"
    reply = model.chat_sync([{"role": "user", "content": "[[fault:500]] hello"}])
    assert reply.text == "echo: [[fault:500]] hello"
    assert reply.usage.completion_tokens == 5
    assert loopback.requests() == 2

    async def refused() -> object:
        [result] = await runner.gather([model.chat([{"role": "user", "content": "[[fault:400]]"}])])
        return result

    failure = runner.run_sync(refused())
    assert isinstance(failure, CallFailed)
    assert failure.attempts == 1


CALL = """
import sys
from dialbench.llm.runner import Runner
from dialbench.llm.specs import ModelConfig

spec = {"spec": "litellm:openai/loopback", "base_url": sys.argv[1], "api_key_env": "LOOPBACK_KEY"}
model = Runner(quiet=True).model(ModelConfig.model_validate(spec))
print(model.chat_sync([{"role": "user", "content": "hello"}]).text)
"""


def test_a_call_uses_the_shipped_cost_map_without_a_warning(loopback: Loopback) -> None:
    """LiteLLM fetches its cost map from GitHub on import unless told not to: three warnings
    where the internet is out of reach, on every command that calls a LiteLLM model."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITELLM_")}
    done = subprocess.run(
        [sys.executable, "-c", CALL, loopback.base_url],
        env=env | {"LOOPBACK_KEY": "sk-loopback"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "echo: hello"
    assert "cost map" not in done.stderr
    assert done.stderr == ""
