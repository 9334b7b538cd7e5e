"""Endpoint pools against real loopback replicas: routing, failover, per-replica limits, cache."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from loopback_server import Loopback, start_loopback

from dialbench.llm.runner import CallFailed, Runner
from dialbench.llm.specs import ModelConfig

pytestmark = pytest.mark.slow


def ask(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


def pool(*replicas: Loopback | str, **settings: object) -> ModelConfig:
    urls = [r if isinstance(r, str) else r.base_url for r in replicas]
    return ModelConfig.model_validate({"spec": "pool:judge", "endpoints": urls, **settings})


def dead_url() -> str:
    """A loopback port nothing listens on: connections are refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


@pytest.fixture
def replicas() -> Iterator[list[Loopback]]:
    """Three fresh replicas, so each one's request count and peak concurrency are this test's."""
    servers = [start_loopback(0.2) for _ in range(3)]
    yield servers
    for server in servers:
        server.stop()


def test_spec_forms_name_one_identity() -> None:
    short = ModelConfig(spec="pool:http://k:secret@a:8000/v1,http://b:8000/v1#qwen")
    listed = ModelConfig(spec="pool:qwen", endpoints=["http://a:8000/v1", "http://b:8000/v1"])
    assert short.spec == "pool:http://a:8000/v1,http://b:8000/v1#qwen"  # no secret kept public
    assert short.replica_urls == ("http://k:secret@a:8000/v1", "http://b:8000/v1")
    runner = Runner(quiet=True)
    assert runner.model(short).spec == runner.model(listed).spec == "pool:qwen"
    assert listed.model_copy(update={"max_concurrency": 16}).concurrency == 32  # 16 per replica
    with pytest.raises(ValueError, match="name the replicas once"):
        ModelConfig(spec="pool:qwen")
    with pytest.raises(ValueError, match="'ftp://a' is no http"):
        ModelConfig(spec="pool:http://a:1/v1,ftp://a#qwen")
    with pytest.raises(ValueError, match="'endpoints' is not a setting of openai: models"):
        ModelConfig(spec="openai:gpt-4.1", endpoints=["http://a:8000/v1"])


def test_requests_spread_by_fewest_outstanding(replicas: list[Loopback]) -> None:
    runner = Runner(quiet=True)
    model = runner.model(pool(*replicas))

    async def spread() -> None:
        await runner.gather([model.chat(ask(f"q{i}")) for i in range(30)])

    runner.run_sync(spread())
    assert [server.stats()["requests"] for server in replicas] == [10, 10, 10]


def test_a_busy_replica_gets_no_new_request_while_others_are_idle() -> None:
    slow, fast = start_loopback(1.5), start_loopback(0.0)
    try:
        runner = Runner(quiet=True)
        model = runner.model(pool(slow, fast))

        async def scenario() -> None:
            both = asyncio.gather(model.chat(ask("a")), model.chat(ask("b")))
            await asyncio.sleep(0.3)  # the fast replica has answered, the slow one has not
            for i in range(3):
                await model.chat(ask(f"later {i}"))
            await both

        runner.run_sync(scenario())
        assert (slow.stats()["requests"], fast.stats()["requests"]) == (1, 4)
    finally:
        slow.stop()
        fast.stop()


def test_failing_replicas_lose_and_duplicate_nothing(tmp_path: Path) -> None:
    healthy, failing = start_loopback(0.05), start_loopback(0.05, failure_rate=1.0)
    try:
        with Runner(tmp_path, quiet=True, jitter_seed=0) as runner:
            model = runner.model(pool(failing, dead_url(), healthy))
            prompts = [f"item {i}" for i in range(40)]

            async def work() -> list[object]:
                return list(await runner.gather([model.chat(ask(p)) for p in prompts]))

            replies = runner.run_sync(work())
            assert [getattr(r, "text", r) for r in replies] == [f"echo: {p}" for p in prompts]
            assert healthy.stats()["requests"] == 40  # each item answered exactly once
            assert failing.stats()["requests"] >= 1  # it was tried, and backed off
            [line] = runner.usage()
            assert (line.calls, line.failed_calls) == (40, 0)
            assert runner.cache is not None
            assert len(runner.cache) == 40
    finally:
        healthy.stop()
        failing.stop()


def test_each_replica_keeps_its_own_concurrency_limit(replicas: list[Loopback]) -> None:
    runner = Runner(quiet=True)
    model = runner.model(pool(*replicas, max_concurrency=2))

    async def load() -> None:
        await runner.gather([model.chat(ask(f"q{i}")) for i in range(18)])

    started = time.perf_counter()
    runner.run_sync(load())
    elapsed = time.perf_counter() - started
    assert [server.stats()["max_in_flight"] for server in replicas] == [2, 2, 2]
    assert 0.6 <= elapsed < 1.6  # three waves of 3 x 2 calls of 0.2 s


def test_each_replica_keeps_its_own_rate_limit() -> None:
    first, second = start_loopback(), start_loopback()
    try:
        runner = Runner(quiet=True)
        model = runner.model(pool(first, second, requests_per_minute=30))

        async def load() -> None:
            await runner.gather([model.chat(ask(f"q{i}")) for i in range(62)])

        started = time.perf_counter()
        runner.run_sync(load())
        # Two buckets of 30 refill one call per 2 s each: the 61st and 62nd wait about 2 s,
        # where one shared bucket of 30 would make the last calls wait a minute.
        assert 1.5 <= time.perf_counter() - started < 5
    finally:
        first.stop()
        second.stop()


def test_cache_hit_after_the_answering_replica_is_gone(tmp_path: Path) -> None:
    answering, other = start_loopback(), start_loopback()
    try:
        with Runner(tmp_path, quiet=True) as runner:
            first = runner.model(pool(answering)).chat_sync(ask("你好，今天天气怎么样？"))
        answering.stop()
        with Runner(tmp_path, quiet=True) as runner:
            again = runner.model(pool(other)).chat_sync(ask("你好，今天天气怎么样？"))
            [line] = runner.usage()
        assert again.cached
        assert again.text == first.text
        assert (line.cached_calls, line.calls) == (1, 0)
        assert other.stats()["requests"] == 0
    finally:
        other.stop()


def test_unreachable_replicas_are_named_in_the_failure() -> None:
    urls = [dead_url(), dead_url()]
    runner = Runner(quiet=True, jitter_seed=0)
    model = runner.model(pool(*urls, max_attempts=2))
    with pytest.raises(CallFailed) as failed:
        model.chat_sync(ask("anyone there?"))
    assert failed.value.attempts == 2
    assert "every replica failed" in str(failed.value)
    assert all(url in str(failed.value) for url in urls)


def test_a_bad_request_is_not_moved_to_another_replica(replicas: list[Loopback]) -> None:
    runner = Runner(quiet=True)
    model = runner.model(pool(*replicas))
    with pytest.raises(CallFailed, match="HTTP 400"):
        model.chat_sync(ask("[[fault:400]] malformed"))
    assert sum(server.stats()["requests"] for server in replicas) == 1
