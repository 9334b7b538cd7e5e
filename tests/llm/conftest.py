"""Fixtures for the LLM layer: a loopback fault-injecting server, run directories."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

SERVER_SCRIPT = Path(__file__).with_name("loopback_server.py")


class Loopback:
    def __init__(self, process: subprocess.Popen[str], port: int) -> None:
        self.process = process
        self.port = port
        self.base_url = f"http://127.0.0.1:{port}/v1"

    def spec(self, model: str = "loopback") -> str:
        return f"openai-compat:{self.base_url}#{model}"

    def requests(self) -> int:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/stats") as reply:
            return int(json.load(reply)["requests"])


def start_loopback(latency_s: float = 0.0) -> Loopback:
    process = subprocess.Popen(
        [sys.executable, str(SERVER_SCRIPT), "--latency", str(latency_s)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    return Loopback(process, int(process.stdout.readline()))


@pytest.fixture
def loopback() -> Iterator[Loopback]:
    server = start_loopback()
    yield server
    server.process.terminate()
    server.process.wait(timeout=10)


@pytest.fixture(autouse=True)
def model_cache_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the assembled models in the user's cache: assembling them again per test is slow."""
    monkeypatch.delenv("DIALBENCH_PRICES", raising=False)
