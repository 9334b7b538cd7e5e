"""Fixtures for the LLM layer: a loopback fault-injecting server, run directories."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

SERVER_SCRIPT = Path(__file__).with_name("loopback_server.py")


class Loopback:
    def __init__(self, process: subprocess.Popen[str], port: int) -> None:
        self.process = process
        self.port = port
        self.base_url = f"http://127.0.0.1:{port}/v1"
        self.offset = 0

    def spec(self, model: str = "loopback") -> str:
        return f"openai-compat:{self.base_url}#{model}"

    def stats(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/stats") as reply:
            stats: dict[str, Any] = json.load(reply)
        return stats

    def requests(self) -> int:
        """Requests received since the test started."""
        return int(self.stats()["requests"]) - self.offset

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


def start_loopback(latency_s: float = 0.0) -> Loopback:
    process = subprocess.Popen(
        [sys.executable, str(SERVER_SCRIPT), "--latency", str(latency_s)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    return Loopback(process, int(process.stdout.readline()))


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
