"""Long jobs: a window of jobs at a time, garbage collection out of the way, stores off the loop."""

from __future__ import annotations

import asyncio
import gc
import inspect
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import pytest

from dialbench.llm.cache import CallCache, StoreWriteFailed
from dialbench.llm.collection import CALLS_THRESHOLD, calls_started, long_job
from dialbench.llm.runner import MIN_WINDOW, CallFailed, Runner
from dialbench.llm.stopping import StopRequested
from dialbench.schema import Dialogue, Invocation, Judgment, Target, Turn
from dialbench.store import RunStore


def test_gather_runs_a_window_of_jobs_and_keeps_their_order() -> None:
    alive, most = 0, 0

    async def job(index: int) -> int:
        nonlocal alive, most
        alive += 1
        most = max(most, alive)
        await asyncio.sleep(0.001 * (index % 3))
        alive -= 1
        if index == 7:
            raise CallFailed("m", "HTTP 500", 3)
        return index

    runner = Runner(None, quiet=True)
    indices = range(3 * MIN_WINDOW)
    results = runner.run_sync(runner.gather([job(i) for i in indices]))
    assert most == MIN_WINDOW
    assert isinstance(results[7], CallFailed)
    assert [r for i, r in enumerate(results) if i != 7] == [i for i in indices if i != 7]


def test_a_stop_closes_the_jobs_it_never_started() -> None:
    async def stopped() -> None:
        raise StopRequested("m")

    jobs: list[Coroutine[Any, Any, None]] = [stopped() for _ in range(2 * MIN_WINDOW)]
    runner = Runner(None, quiet=True)
    with pytest.raises(StopRequested):
        runner.run_sync(runner.gather(jobs))
    assert {inspect.getcoroutinestate(job) for job in jobs} == {inspect.CORO_CLOSED}


def test_a_long_job_collects_nothing_while_it_builds_then_rarely() -> None:
    before = gc.get_threshold()
    with long_job():
        assert not gc.isenabled()
        with long_job():
            calls_started()
            assert gc.isenabled()
            assert gc.get_threshold()[0] == CALLS_THRESHOLD
            assert gc.get_freeze_count() > 0
        assert gc.get_freeze_count() > 0  # another job is still open
    assert gc.isenabled()
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_records_the_writer_cannot_store_are_an_error_not_lost(tmp_path: Path) -> None:
    RunStore.open(tmp_path).close()
    never_stored = Invocation(command="judge")
    judgment = Judgment(
        protocol="holistic",
        judge_model="m",
        target=Target(dialogue_id="d"),
        parse_status="unscored",
    )
    cache = CallCache(tmp_path)
    cache.put_records([judgment], never_stored)
    with pytest.raises(StoreWriteFailed, match="FOREIGN KEY"):
        cache.flush()
    cache.close()


def test_a_record_the_store_refuses_loses_nothing_written_with_it(tmp_path: Path) -> None:
    with RunStore.open(tmp_path) as store:
        run = store.start_invocation("simulate")
    good, other = (
        Dialogue(id=name, language="en", turns=[Turn(role="user", text="hi")])
        for name in ("good", "other")
    )
    unstorable = Dialogue(id="odd", language="en", turns=[Turn(role="user", text="hi \ud800")])
    cache = CallCache(tmp_path)
    cache.put_records([good, unstorable, other], run)
    with pytest.raises(StoreWriteFailed, match=r"dialogue odd: .*surrogates not allowed"):
        cache.flush()
    cache.close()
    with RunStore.open(tmp_path) as store:
        assert [d.id for d in store.records(Dialogue)] == ["good", "other"]
