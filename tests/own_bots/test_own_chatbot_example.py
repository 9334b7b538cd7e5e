"""examples/own_chatbot end to end, as its docs page runs it: the FAQ bot as a Python function,
then as a stateful FastAPI service this test starts, each the chatbot of `dialbench simulate`
against the local user model; then `judge` and `report` over both."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
import yaml

from dialbench.schema import Dialogue
from dialbench.store import RunStore
from tests.conftest import DIALBENCH

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "own_chatbot"
KEY = "faq-bot-test-key"
QWEN = "local:qwen2.5-0.5b"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    copy = tmp_path / "own_chatbot"
    shutil.copytree(EXAMPLE, copy)
    return copy


@pytest.fixture
def service(folder: Path) -> Iterator[str]:
    """The example's service on a free port, as `uvicorn service:app` starts it."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "service:app", "--port", str(port)],
        cwd=folder,
        env={**os.environ, "FAQ_BOT_KEY": KEY},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{base}/sessions/none", timeout=1)
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise
                time.sleep(0.2)
        yield base
    finally:
        process.terminate()
        process.wait(30)


def dialbench(folder: Path, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(DIALBENCH), *args],
        cwd=folder,
        env={**os.environ, "FAQ_BOT_KEY": KEY, "COLUMNS": "200"},
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    assert not ok or done.returncode == 0, done.stderr
    return done


def test_the_faq_bot_as_a_function_and_as_a_service(folder: Path, service: str) -> None:
    http_config = folder / "simulate_http.yaml"
    setup = yaml.safe_load(http_config.read_text(encoding="utf-8"))
    setup["chatbots"]["models"][0]["http"]["url"] = f"{service}/chat"
    http_config.write_text(yaml.safe_dump(setup), encoding="utf-8")

    dialbench(folder, "simulate", "simulate_callable.yaml", "--run", "runs/faq", "--quiet")
    dialbench(folder, "simulate", "simulate_http.yaml", "--run", "runs/faq", "--quiet")
    with RunStore.open(folder / "runs" / "faq", create=False) as store:
        dialogues = list(store.records(Dialogue))
        configs = [str(run.config) for run in store.invocations()]
    bots = sorted({d.participants.assistant for d in dialogues})
    assert bots == ["http:faq-bot", "python:faq_bot:reply"]
    assert len(dialogues) == 4  # en and de, one context each, for each bot
    assert not any(KEY in config for config in configs)
    for dialogue in dialogues:
        assert dialogue.end_reason != "error", dialogue.metadata.get("error")
        assert dialogue.participants.user == QWEN
        bot_turns = [t for t in dialogue.turns if t.role == "assistant"]
        assert bot_turns
        assert all(t.model == dialogue.participants.assistant for t in bot_turns)
        if dialogue.participants.assistant.startswith("http:"):
            session = dialogue.metadata["chatbot_session"]
            with urllib.request.urlopen(f"{service}/sessions/{session}") as answer:
                heard = orjson.loads(answer.read())["questions"]
            asked = [t.text for t in dialogue.turns if t.role == "user"]
            assert heard == asked[: len(bot_turns)]

    judged = dialbench(
        folder, "judge", "runs/faq", "-p", "issues", "--judge", QWEN, "--quiet", ok=False
    )
    assert "Traceback" not in judged.stderr
    reported = dialbench(folder, "report", "runs/faq")
    assert "wrote" in reported.stdout
    assert (folder / "runs" / "faq" / "report").is_dir()
