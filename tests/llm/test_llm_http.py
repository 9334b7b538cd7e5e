"""The OpenAI-compatible backend and the runner against a real loopback HTTP server."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from loopback_server import Loopback

from dialbench.llm.backends import openai_compat
from dialbench.llm.backends.openai_compat import MissingAPIKeyError
from dialbench.llm.base import GenerationParams
from dialbench.llm.runner import CallFailed, Runner
from dialbench.llm.specs import ModelConfig
from dialbench.llm.structured import file_hashes


def ask(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


def test_chat_and_complete_return_text_usage_and_latency(loopback: Loopback) -> None:
    runner = Runner(quiet=True)
    model = runner.model(loopback.spec())
    reply = model.chat_sync(ask("hello"))
    assert reply.text == "echo: hello"
    assert reply.finish_reason == "stop"
    assert reply.usage.prompt_tokens == 10
    assert reply.usage.completion_tokens == 5
    assert reply.latency_s > 0
    assert model.complete_sync("USER: hi\nBOT:").text == "echo: USER: hi\nBOT:"


@pytest.mark.parametrize("fault", ["500", "503", "timeout", "truncated", "badjson"])
def test_transient_faults_are_retried(loopback: Loopback, fault: str) -> None:
    runner = Runner(quiet=True, jitter_seed=0)
    model = runner.model(ModelConfig(spec=loopback.spec(), timeout_s=0.5))
    reply = model.chat_sync(ask(f"[[fault:{fault},{fault}]] hi"))
    assert reply.text.startswith("echo:")
    assert loopback.requests() == 3
    [line] = runner.usage()
    assert (line.calls, line.retries, line.failed_calls) == (1, 2, 0)


def test_429_waits_for_retry_after(loopback: Loopback) -> None:
    runner = Runner(quiet=True)
    model = runner.model(loopback.spec())
    started = time.perf_counter()
    model.chat_sync(ask("[[fault:429]] hi"))
    assert time.perf_counter() - started >= 1.0  # the server said Retry-After: 1
    assert loopback.requests() == 2


def test_retry_after_holds_off_the_whole_endpoint(loopback: Loopback) -> None:
    runner = Runner(quiet=True)
    model = runner.model(loopback.spec())

    async def later_call() -> float:
        await asyncio.sleep(0.3)  # sent after the 429 arrived
        await model.chat(ask("an unrelated call"))
        return time.perf_counter() - started

    async def batch() -> float:
        _, later = await asyncio.gather(model.chat(ask("[[fault:429]] hold off")), later_call())
        return later

    started = time.perf_counter()
    assert runner.run_sync(batch()) >= 1.0


def test_a_failed_item_does_not_fail_the_batch(loopback: Loopback) -> None:
    runner = Runner(quiet=True, jitter_seed=0)
    model = runner.model(ModelConfig(spec=loopback.spec(), max_attempts=2))
    prompts = ["one", "[[fault:400]] bad request", "[[fault:500,500,500]] down", "two"]

    async def batch() -> list[object]:
        return list(await runner.gather([model.chat(ask(p)) for p in prompts]))

    first, bad, down, last = runner.run_sync(batch())
    assert isinstance(bad, CallFailed)
    assert bad.attempts == 1  # 400 is not retryable
    assert "HTTP 400" in bad.reason
    assert isinstance(down, CallFailed)
    assert down.attempts == 2
    assert getattr(first, "text", None) == "echo: one"
    assert getattr(last, "text", None) == "echo: two"
    [line] = runner.usage()
    assert (line.calls, line.failed_calls) == (2, 2)


def test_concurrency_limit_per_endpoint(slow_loopback: Loopback) -> None:
    runner = Runner(quiet=True)
    model = runner.model(ModelConfig(spec=slow_loopback.spec(), max_concurrency=2))

    async def batch() -> None:
        await runner.gather([model.chat(ask(f"q{i}")) for i in range(6)])

    started = time.perf_counter()
    runner.run_sync(batch())
    elapsed = time.perf_counter() - started
    assert 0.6 <= elapsed < 1.2  # three waves of two 0.2 s calls


def test_requests_per_minute_limit(loopback: Loopback) -> None:
    runner = Runner(quiet=True)
    model = runner.model(ModelConfig(spec=loopback.spec(), requests_per_minute=60))

    async def batch() -> None:
        await runner.gather([model.chat(ask(f"q{i}")) for i in range(62)])

    started = time.perf_counter()
    runner.run_sync(batch())
    # A bucket of 60 drains at one per second: the 61st and 62nd call wait about 1 s and 2 s.
    assert time.perf_counter() - started >= 1.5


def test_reasoning_models_get_effort_and_no_rejected_parameters(loopback: Loopback) -> None:
    runner = Runner(quiet=True)
    model = runner.model(ModelConfig(spec=loopback.spec("o3-mini"), reasoning_effort="low"))
    params = GenerationParams(temperature=0.7, presence_penalty=0.6, stop=("\n",))
    reply = model.chat_sync(ask("think"), params)
    assert reply.text == "echo: think"
    sent = loopback.stats()["last_body"]
    assert sent["reasoning_effort"] == "low"
    assert sent["max_completion_tokens"] == 256
    assert not {"temperature", "presence_penalty", "stop", "max_tokens", "seed"} & set(sent)


def test_sampling_parameters_reach_the_endpoint(loopback: Loopback) -> None:
    runner = Runner(quiet=True)
    params = GenerationParams(temperature=1.5, top_p=0.9, presence_penalty=0.6, seed=3)
    runner.model(loopback.spec()).chat_sync(ask("first turn"), params)
    sent = loopback.stats()["last_body"]
    assert (sent["temperature"], sent["top_p"], sent["presence_penalty"], sent["seed"]) == (
        1.5,
        0.9,
        0.6,
        3,
    )


def test_yes_probability_from_logprobs(loopback: Loopback) -> None:
    runner = Runner(quiet=True)
    result = runner.model(loopback.spec()).yes_probability_sync(ask("Is water wet?"))
    assert result.status == "ok"
    assert result.p_yes == pytest.approx(0.8 / 0.95)


def test_structured_reasks_then_succeeds(loopback: Loopback) -> None:
    runner = Runner(quiet=True)
    schema = {"type": "object", "properties": {"score": {"enum": [1, 2, 3]}}, "required": ["score"]}
    prompt = '[[replies:not json||{"score": 7}||```json\n{"score": 2}\n```]] rate this'
    result = runner.model(loopback.spec()).structured_sync(ask(prompt), schema)
    assert result.status == "ok"
    assert result.value == {"score": 2}
    assert len(result.raw_outputs) == 3
    sent = loopback.stats()["last_body"]
    reask = sent["messages"][-1]["content"]
    assert "could not be used: at score: 7 is not one of [1, 2, 3]" in reask
    assert sent["response_format"]["json_schema"]["schema"] == schema


def test_structured_gives_up_as_unscored(loopback: Loopback) -> None:
    runner = Runner(quiet=True)
    model = runner.model(ModelConfig(spec=loopback.spec(), structured_output="prompt"))
    result = model.structured_sync(ask("[[replies:{broken]] rate this"), {"type": "object"})
    assert result.status == "unscored"
    assert result.value is None
    assert result.error is not None
    assert result.error.startswith("not valid JSON")
    assert len(result.raw_outputs) == 3  # the first answer and two re-asks
    assert set(file_hashes(schema_in_prompt=True)) == {"llm_reask", "llm_json_instruction"}
    assert "response_format" not in loopback.stats()["last_body"]


def test_rerun_from_cache_makes_zero_calls(loopback: Loopback, tmp_path: Path) -> None:
    prompts = [f"question {i}" for i in range(20)]

    def run() -> list[str]:
        with Runner(tmp_path, quiet=True) as runner:
            model = runner.model(loopback.spec())

            async def batch() -> list[str]:
                replies = await asyncio.gather(*(model.chat(ask(p)) for p in prompts))
                return [r.text for r in replies]

            return runner.run_sync(batch())

    first = run()
    assert loopback.requests() == 20
    assert run() == first
    assert loopback.requests() == 20


def test_samples_are_separate_cache_entries(loopback: Loopback, tmp_path: Path) -> None:
    with Runner(tmp_path, quiet=True) as runner:
        model = runner.model(loopback.spec())

        async def samples() -> None:
            for sample in (0, 1, 0):
                await model.chat(ask("same"), sample=sample)

        runner.run_sync(samples())
        [line] = runner.usage()
        assert (line.calls, line.cached_calls) == (2, 1)
    assert loopback.requests() == 2


def test_identical_calls_in_flight_make_one_request(
    slow_loopback: Loopback, tmp_path: Path
) -> None:
    """Dialogues that share a first user turn ask the same thing at once: one request answers
    them all, and a failure reaches every one of them."""
    before = slow_loopback.requests()
    with Runner(tmp_path, quiet=True) as runner:
        model = runner.model(
            ModelConfig(spec=slow_loopback.spec(), max_attempts=1, max_concurrency=8)
        )
        prompts = ["same"] * 5 + ["[[fault:400]] refused"] * 3

        async def batch() -> list[object]:
            return list(await runner.gather([model.chat(ask(p)) for p in prompts]))

        results = runner.run_sync(batch())
        [line] = runner.usage()
    assert [getattr(r, "text", None) for r in results[:5]] == ["echo: same"] * 5
    assert all(isinstance(r, CallFailed) and "HTTP 400" in r.reason for r in results[5:])
    assert (line.calls, line.cached_calls, line.failed_calls) == (1, 4, 1)
    assert slow_loopback.requests() - before == 2


def test_cost_from_an_extended_price_table(
    loopback: Loopback, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({loopback.spec(): [1000.0, 2000.0]}))
    monkeypatch.setenv("DIALBENCH_PRICES", str(prices))
    runner = Runner(quiet=True)
    reply = runner.model(loopback.spec(), role="judge").chat_sync(ask("hi"))
    assert reply.usage.cost_usd == pytest.approx((10 * 1000 + 5 * 2000) / 1e6)
    [line] = runner.usage()
    assert line.role == "judge"
    assert line.usage.cost_usd == pytest.approx(0.02)


def test_openai_sends_key_and_account_headers(
    loopback: Loopback, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(openai_compat, "OPENAI_BASE_URL", loopback.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key")
    monkeypatch.setenv("OPENAI_ORG_ID", "org-1")
    monkeypatch.delenv("OPENAI_PROJECT_ID", raising=False)
    Runner(quiet=True).model("openai:gpt-4.1").chat_sync(ask("hi"))
    headers = loopback.stats()["last_headers"]
    assert headers["Authorization"] == "Bearer sk-test-key"
    assert headers["OpenAI-Organization"] == "org-1"
    assert "OpenAI-Project" not in headers
    assert headers["User-Agent"].startswith("dialbench/")


def test_openai_compat_without_a_key_sends_no_authorization(loopback: Loopback) -> None:
    Runner(quiet=True).model(loopback.spec()).chat_sync(ask("hi"))
    assert "Authorization" not in loopback.stats()["last_headers"]


def test_openai_without_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(MissingAPIKeyError, match="OPENAI_API_KEY"):
        Runner(quiet=True).model("openai:gpt-4.1")


@pytest.mark.parametrize("quiet", [True, False])
def test_progress_bar_unless_quiet(
    loopback: Loopback, capsys: pytest.CaptureFixture[str], quiet: bool
) -> None:
    runner = Runner(quiet=quiet)
    model = runner.model(loopback.spec())

    async def batch() -> None:
        await runner.gather([model.chat(ask(f"p{i}")) for i in range(3)], "judging")

    runner.run_sync(batch())
    err = capsys.readouterr().err
    assert ("judging" in err and "3/3" in err) is not quiet


CALLS_ONE_BY_ONE = """
import sys
from dialbench.llm.runner import Runner
from dialbench.llm.specs import ModelConfig

runner = Runner()
model = runner.model(ModelConfig(spec=sys.argv[1], max_concurrency=1))
asks = [[{"role": "user", "content": f"p{i}"}] for i in range(8)]
runner.run_sync(runner.gather([model.chat(ask) for ask in asks], "judging"))
"""


def test_progress_into_a_log_file_is_a_plain_line_every_few_seconds(
    slow_loopback: Loopback, tmp_path: Path
) -> None:
    """Rich draws its bar into a file only once, at the end: a judge writing to a log showed
    nothing for hours. Eight calls of 0.2 s, one at a time, a line every 0.3 s."""
    log = tmp_path / "judge.log"
    with log.open("w") as stderr:
        subprocess.run(
            [sys.executable, "-c", CALLS_ONE_BY_ONE, slow_loopback.spec()],
            stderr=stderr,
            env=os.environ | {"DIALBENCH_PROGRESS_EVERY_S": "0.3"},
            timeout=60,
            check=True,
        )
    lines = log.read_text().splitlines()
    assert len(lines) >= 3, lines
    assert all(line.startswith("judging ") and line.isprintable() for line in lines), lines
    assert lines[-1].startswith("judging 8/8 ")
    done = [int(line.split()[1].split("/")[0]) for line in lines]
    assert done == sorted(done)
    assert done[0] < 8


def test_http_proxy_from_the_environment(
    loopback: Loopback, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The loopback server stands in for a proxy: the endpoint's own host does not exist."""
    for variable in ("HTTP_PROXY", "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("http_proxy", f"http://127.0.0.1:{loopback.port}")
    model = Runner(quiet=True).model(
        ModelConfig(spec="openai-compat:http://model.invalid/v1#m", max_attempts=1)
    )
    assert model.chat_sync(ask("via the proxy")).text == "echo: via the proxy"
    monkeypatch.setenv("no_proxy", "model.invalid")
    model = Runner(quiet=True).model(
        ModelConfig(spec="openai-compat:http://model.invalid/v1#m", max_attempts=1)
    )
    with pytest.raises(CallFailed, match=r"ClientConnectorDNSError|Cannot connect"):
        model.chat_sync(ask("not via the proxy"))
