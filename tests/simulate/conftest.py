"""Fixtures for simulation tests: a loopback OpenAI-compatible server and config files."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "llm"))
from loopback_server import Loopback, start_loopback

WriteConfig = Callable[..., Path]
# The loopback server answers a prompt that contains this with "Yes.": the validator (transcript
# form) sees the scene, the user (chat form) and the chatbot do not, so they get echoes.
ACCEPT_ALL = "[[replies:Yes.]]"


@pytest.fixture(scope="session")
def latency_loopback() -> Iterator[Loopback]:
    server = start_loopback(0.05)
    yield server
    server.stop()


@pytest.fixture
def loopback_config(tmp_path: Path, latency_loopback: Loopback) -> WriteConfig:
    """A config whose every model is the loopback server; keyword arguments override fields."""

    def write(**overrides: Any) -> Path:
        scenes = tmp_path / "scenes.txt"
        scenes.write_text(
            "\n".join(f"Scene {i}: someone plans a picnic. {ACCEPT_ALL}" for i in range(8)),
            encoding="utf-8",
        )
        config: dict[str, Any] = {
            "languages": ["en"],
            "seeds": {"contexts": 4, "scenes": "scenes.txt"},
            "user": {"models": [latency_loopback.spec("user")], "form": "chat"},
            "validator": {"model": latency_loopback.spec("judge"), "form": "transcript"},
            "chatbots": {
                "models": [latency_loopback.spec("bot-a"), latency_loopback.spec("bot-b")]
            },
            "max_utterances": 6,
            "concurrency": 2,
            **overrides,
        }
        path = tmp_path / "simulate.yaml"
        path.write_text(yaml.safe_dump(config), encoding="utf-8")
        return path

    return write
