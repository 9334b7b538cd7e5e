"""Backends by registry, the built-in scripted backend, and usage kept through the store."""

from __future__ import annotations

from pathlib import Path

import pytest

from dialbench.llm.backends.scripted import register_script
from dialbench.llm.base import ModelError, Request
from dialbench.llm.runner import CallFailed, Runner
from dialbench.llm.specs import BACKENDS, ModelConfig, ModelSpecError, parse_spec
from dialbench.schema import Usage, UsageLine
from dialbench.store import RunStore


def test_every_registered_backend_parses_and_an_unknown_one_lists_them() -> None:
    assert parse_spec("scripted:echo").backend == "scripted"
    assert parse_spec("openai-compat:http://127.0.0.1:8000/v1#m").base_url == (
        "http://127.0.0.1:8000/v1"
    )
    with pytest.raises(ModelSpecError, match=r"unknown backend 'vllm' \(known: local, openai"):
        parse_spec("vllm:qwen")
    assert set(BACKENDS) >= {"local", "openai", "openai-compat", "litellm", "scripted"}


def test_a_scripted_model_goes_through_the_runner_cache_and_accounting(tmp_path: Path) -> None:
    asked: list[str] = []

    def shout(request: Request) -> str:
        asked.append(request.messages[-1].content)
        if "fail" in request.messages[-1].content:
            raise ModelError("HTTP 400: no", retryable=False)
        return request.messages[-1].content.upper()

    spec = register_script("shout", shout)
    with Runner(tmp_path, quiet=True) as runner:
        model = runner.model(ModelConfig(spec=spec, max_attempts=1), role="assistant")
        assert model.chat_sync([{"role": "user", "content": "hallo welt"}]).text == "HALLO WELT"
        again = model.chat_sync([{"role": "user", "content": "hallo welt"}])
        with pytest.raises(CallFailed, match="HTTP 400: no"):
            model.chat_sync([{"role": "user", "content": "please fail"}])
        [line] = runner.usage()
    assert again.cached
    assert asked == ["hallo welt", "please fail"]
    assert (line.calls, line.cached_calls, line.failed_calls) == (1, 1, 1)


def test_an_unregistered_script_is_a_clear_error() -> None:
    with pytest.raises(Exception, match="no script registered as 'nobody'"):
        Runner(None, quiet=True).model("scripted:nobody")


def test_usage_lines_are_saved_per_run_and_summed_by_the_store(tmp_path: Path) -> None:
    line = UsageLine(role="judge", model="m", calls=2, usage=Usage(prompt_tokens=10, cost_usd=0.5))
    other = UsageLine(role="user", model="m", calls=1)
    with RunStore.open(tmp_path) as store:
        store.save_usage("run-1", [line, other])
        store.save_usage("run-2", [line.model_copy(update={"retries": 3})])
        store.save_usage("run-2", [line])  # saving a run again replaces its lines
        judge, user = store.usage()
    assert (judge.role, judge.calls, judge.retries) == ("judge", 4, 0)
    assert judge.usage == Usage(prompt_tokens=20, cost_usd=1.0)
    assert (user.role, user.calls) == ("user", 1)
