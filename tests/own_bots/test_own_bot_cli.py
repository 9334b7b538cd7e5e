"""`dialbench simulate CONFIG --chatbot python:mybot:reply` from the folder holding mybot.py, as
a user runs it (the user simulator a Python function too, so no model runs)."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import yaml

from dialbench.schema import Dialogue
from dialbench.store import RunStore
from tests.conftest import DIALBENCH, RunCli

BOT = """
def reply(request):
    return f"We open at nine. ({request.language}, turn {len(request.messages)})"
"""
USER = """
def write(request):
    return "When does the library open on Saturdays?"
"""
HUNG_BOT = """
import time

def reply(request):
    time.sleep(10**6)
"""


def write_config(folder: Path, chatbot: str | dict[str, object]) -> None:
    """simulate.yaml: two English dialogues of four utterances, the user `python:myuser:write`."""
    (folder / "myuser.py").write_text(USER, encoding="utf-8")
    config = {
        "languages": ["en"],
        "seeds": {"contexts": 2},
        "user": {"models": ["python:myuser:write"]},
        "validator": {"model": None},
        "chatbots": {"models": [chatbot]},
        "max_utterances": 4,
    }
    (folder / "simulate.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")


def test_simulate_takes_a_python_chatbot_from_the_working_directory(
    cli: RunCli, tmp_path: Path
) -> None:
    (tmp_path / "mybot.py").write_text(BOT, encoding="utf-8")
    write_config(tmp_path, "local:qwen2.5-0.5b")
    done = cli(
        "simulate", "simulate.yaml", "--run", "run", "--quiet", "--chatbot", "python:mybot:reply"
    )
    assert "generated now" in done.stdout
    with RunStore.open(tmp_path / "run") as store:
        dialogues = list(store.records(Dialogue))
    assert [d.end_reason for d in dialogues] == ["turn_cap", "turn_cap"]
    for dialogue in dialogues:
        assert dialogue.participants.assistant == "python:mybot:reply"
        assert dialogue.provenance is not None
        assert dialogue.provenance.models["assistant"] == "python:mybot:reply"
        assert dialogue.turns[1].text == "We open at nine. (en, turn 1)"
    missing = cli(
        "simulate", "simulate.yaml", "--run", "run2", "--chatbot", "python:mybot:answer", ok=False
    )
    assert missing.returncode == 1
    assert "model spec 'python:mybot:answer'" in missing.stderr
    assert "Traceback" not in missing.stderr


def test_a_hung_bot_is_abandoned_at_its_time_out_and_the_command_still_ends(tmp_path: Path) -> None:
    """Its threads never keep the process alive: the failures are stored, the command ends, and
    its last line says how many calls it left running."""
    (tmp_path / "hungbot.py").write_text(HUNG_BOT, encoding="utf-8")
    write_config(tmp_path, {"spec": "python:hungbot:reply", "timeout_s": 1, "max_attempts": 2})
    started = time.monotonic()
    done = subprocess.run(
        [str(DIALBENCH), "simulate", "simulate.yaml", "--run", "run", "--quiet"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert time.monotonic() - started < 30
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines()[-1] == (
        "dialbench: abandoned 4 call(s) to python:hungbot:reply still running after their 1s "
        "time-out"
    )
    with RunStore.open(tmp_path / "run") as store:
        dialogues = list(store.records(Dialogue))
    assert [d.end_reason for d in dialogues] == ["error", "error"]
    for dialogue in dialogues:
        assert "no reply within 1s (after 2 attempt(s))" in str(dialogue.metadata["error"])
