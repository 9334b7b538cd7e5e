"""Fixtures for the LLM layer: loopback fault-injecting servers shared by the session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from loopback_server import Loopback, start_loopback


@pytest.fixture(scope="session")
def loopback_server() -> Iterator[Loopback]:
    server = start_loopback()
    yield server
    server.stop()


@pytest.fixture
def loopback(loopback_server: Loopback) -> Loopback:
    """The shared server, its request count starting from zero for this test."""
    loopback_server.offset = int(loopback_server.stats()["requests"])
    return loopback_server


@pytest.fixture(scope="session")
def slow_loopback() -> Iterator[Loopback]:
    """Every reply takes 0.2 s: for concurrency timing."""
    server = start_loopback(0.2)
    yield server
    server.stop()
