"""One thread for a process's in-process generation, taking waiting calls in the order that keeps
a model's prompt cache warm.

llama.cpp's worker threads belong to the thread that calls it; calls spread over a pool's
threads left idle teams competing for the cores and halved tokens/s on two cores
(benchmarks/local_tokens.py), so every call runs on one thread. Stages side by side (a pipeline's
judges) then take turns on it, and taken first come, first served, each turn switches prompt:
a context reuses only the prefix its last call evaluated, so every switch evaluates the
instructions again, and side by side took 1.17 to 1.20 times as long as one stage after another
(benchmarks/local_stages.py). So the next call is one that goes on with the last one's
`affinity` (its model context and the start of its prompt), else the one waiting longest; a call
is passed over at most `PASSED_OVER` times, so no stage waits for another's whole work.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

T = TypeVar("T")
PASSED_OVER = 64


@dataclass
class _Call(Generic[T]):
    affinity: Hashable
    work: Callable[[], T]
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[T]
    passed_over: int = 0

    def settle(self, result: Any = None, error: BaseException | None = None) -> None:
        self.loop.call_soon_threadsafe(self._set, result, error)

    def _set(self, result: Any, error: BaseException | None) -> None:
        if self.future.done():  # its caller gave up waiting (cancelled)
            return
        if error is not None:
            self.future.set_exception(error)
        else:
            self.future.set_result(result)


class GenerationQueue:
    """Calls to in-process models, run one at a time on one thread (named `name`)."""

    def __init__(self, name: str) -> None:
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)
        self._lock = threading.Lock()
        self._waiting: list[_Call[Any]] = []
        self._last: Hashable = None

    async def run(self, affinity: Hashable, work: Callable[[], T]) -> T:
        """`work()` on the generation thread, when its turn comes."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        call = _Call(affinity, work, loop, future)
        with self._lock:
            self._waiting.append(call)
        # One turn for each call: the thread's executor keeps it alive and ends it at exit;
        # which call a turn serves is `_next`'s choice.
        self._thread.submit(self._turn)
        return await call.future

    def _turn(self) -> None:
        with self._lock:
            call = self._next()
        if call.future.done():  # its caller stopped waiting (cancelled): nothing to generate
            return
        try:
            result = call.work()
        except BaseException as error:  # the caller's to raise, in its own task
            call.settle(error=error)
        else:
            call.settle(result)

    def _next(self) -> _Call[Any]:
        """The first waiting call that goes on with the last one's affinity, unless the one
        waiting longest was passed over too often; else the one waiting longest."""
        oldest = self._waiting[0]
        chosen = oldest
        if oldest.affinity != self._last and oldest.passed_over < PASSED_OVER:
            chosen = next((c for c in self._waiting if c.affinity == self._last), oldest)
        for call in self._waiting:
            if call is chosen:
                break
            call.passed_over += 1
        self._waiting.remove(chosen)
        self._last = chosen.affinity
        return chosen
