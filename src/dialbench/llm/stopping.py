"""A stop asked for in this process (a pipeline's Ctrl-C): no new call starts, in any thread;
calls in flight finish and are cached, so nothing paid for is lost and the next run picks up
from there. The runner checks it before a call starts, the generation thread before a waiting
in-process call runs."""

from __future__ import annotations

import threading

_stop_requested = threading.Event()


class StopRequested(Exception):
    """Raised instead of starting a call once a stop was requested (a pipeline's Ctrl-C)."""


def request_stop() -> None:
    _stop_requested.set()


def stop_requested() -> bool:
    return _stop_requested.is_set()
