"""Threads for blocking calls that must never keep the process alive, and a tally of the calls
given up on while they still ran.

A `ThreadPoolExecutor` joins its threads when the interpreter exits, so a sync bot hung in
`time.sleep` kept a command running forever after its time-outs had recorded the failures. These
threads are daemons, so the command ends when its work does, and says at the end which calls it
left running (`still_running`).
"""

from __future__ import annotations

import queue
import threading
import weakref
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")
Work = tuple[Future[Any], Callable[[], Any]] | None  # None: the pool is gone, stop

_abandoned: list[tuple[str, float, Future[Any]]] = []
_abandoned_lock = threading.Lock()


def _serve(work: queue.SimpleQueue[Work]) -> None:
    """One thread's loop: run each call taken from `work`, until the pool is gone."""
    while (item := work.get()) is not None:
        future, call = item
        if not future.set_running_or_notify_cancel():
            continue  # its caller gave up before it started
        try:
            future.set_result(call())
        except BaseException as error:  # the caller's to judge: it awaits the future
            future.set_exception(error)


def _stop(work: queue.SimpleQueue[Work], width: int) -> None:
    """One stop for every thread the pool may have started; a hung one never reads its own."""
    for _ in range(width):
        work.put(None)


class DaemonThreads:
    """At most `width` daemon threads running calls in turn, the others queued: a bound on how
    many calls run at once that holds when some of them hang. Started as needed; the idle ones
    stop when the pool is garbage-collected, the hung ones with the process."""

    def __init__(self, width: int, name: str) -> None:
        self.width = width
        self.name = name
        self._work: queue.SimpleQueue[Work] = queue.SimpleQueue()
        self._threads = 0
        self._lock = threading.Lock()
        weakref.finalize(self, _stop, self._work, width)

    def submit(self, call: Callable[[], T]) -> Future[T]:
        future: Future[T] = Future()
        self._work.put((future, call))
        with self._lock:
            if self._threads < self.width:
                self._threads += 1
                threading.Thread(
                    target=_serve,
                    args=(self._work,),
                    name=f"{self.name}_{self._threads}",
                    daemon=True,
                ).start()
        return future


def abandon(spec: str, timeout_s: float, future: Future[Any]) -> None:
    """Note a call to `spec` given up on after `timeout_s` while its thread still runs it."""
    with _abandoned_lock:
        _abandoned[:] = [call for call in _abandoned if not call[2].done()]
        _abandoned.append((spec, timeout_s, future))


def still_running() -> list[str]:
    """One line per model and time-out, for the end of a command: the calls given up on that
    have not ended since."""
    with _abandoned_lock:
        running = Counter((spec, timeout_s) for spec, timeout_s, f in _abandoned if not f.done())
    return [
        f"abandoned {n} call(s) to {spec} still running after their {timeout_s:g}s time-out"
        for (spec, timeout_s), n in running.items()
    ]
