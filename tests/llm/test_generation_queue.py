"""The one generation thread of in-process models: calls of stages side by side are taken so
that a call follows one with the same prompt start (the context's prefix cache is warm), none
is passed over without bound, and each caller gets its own result or error."""

from __future__ import annotations

import asyncio
import threading

import pytest

from dialbench.llm.backends import generation_queue
from dialbench.llm.backends.generation_queue import GenerationQueue


def test_calls_that_go_on_with_the_last_prompt_come_first() -> None:
    """Two stages' calls arrive interleaved while the thread is busy: they run grouped."""
    queue = GenerationQueue("test")
    ran: list[str] = []
    busy = threading.Event()

    async def main() -> list[str]:
        def hold() -> str:
            busy.wait(5)
            ran.append("a")
            return "a"

        first = asyncio.ensure_future(queue.run("a", hold))
        await asyncio.sleep(0.05)  # the thread holds the first call while the rest arrive
        rest = [
            asyncio.ensure_future(queue.run(stage, lambda s=stage: ran.append(s) or s))
            for stage in ["b", "a", "b", "a", "b"]
        ]
        await asyncio.sleep(0.05)
        busy.set()
        return [await first, *[await call for call in rest]]

    results = asyncio.run(main())
    assert results == ["a", "b", "a", "b", "a", "b"]  # each caller its own answer
    assert ran == ["a", "a", "a", "b", "b", "b"]  # one switch of prompt, not five


def test_a_call_is_passed_over_a_bounded_number_of_times(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(generation_queue, "PASSED_OVER", 2)
    queue = GenerationQueue("test")
    ran: list[str] = []
    busy = threading.Event()

    async def main() -> None:
        first = asyncio.ensure_future(queue.run("a", lambda: busy.wait(5) and ran.append("a")))
        await asyncio.sleep(0.05)
        stages = ["b", "a", "a", "a", "a"]
        rest = [
            asyncio.ensure_future(queue.run(stage, lambda s=stage: ran.append(s)))
            for stage in stages
        ]
        await asyncio.sleep(0.05)
        busy.set()
        await asyncio.gather(first, *rest)

    asyncio.run(main())
    assert ran == ["a", "a", "a", "b", "a", "a"]  # b waited two turns, then had its own


def test_an_error_reaches_its_own_caller_and_the_queue_goes_on() -> None:
    queue = GenerationQueue("test")

    def fails() -> str:
        raise RuntimeError("llama.cpp: context full")

    async def main() -> tuple[BaseException | str, ...]:
        return tuple(
            await asyncio.gather(
                queue.run("a", fails), queue.run("a", lambda: "fine"), return_exceptions=True
            )
        )

    failed, fine = asyncio.run(main())
    assert isinstance(failed, RuntimeError)
    assert str(failed) == "llama.cpp: context full"
    assert fine == "fine"


def test_a_caller_that_stops_waiting_leaves_the_others_their_answers() -> None:
    queue = GenerationQueue("test")
    busy = threading.Event()

    ran: list[str] = []

    async def main() -> str:
        held = asyncio.ensure_future(queue.run("a", lambda: busy.wait(5) and "held"))
        await asyncio.sleep(0.05)
        given_up = asyncio.ensure_future(queue.run("a", lambda: ran.append("given up")))
        kept = asyncio.ensure_future(queue.run("b", lambda: "kept"))
        await asyncio.sleep(0.01)
        given_up.cancel()
        busy.set()
        assert await held == "held"
        return await kept

    assert asyncio.run(main()) == "kept"
    assert ran == []  # a call nobody waits for is not generated
