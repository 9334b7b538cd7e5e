"""`dialbench simulate CONFIG --chatbot python:mybot:reply` from the folder holding mybot.py, as
a user runs it (the user simulator a Python function too, so no model runs)."""

from __future__ import annotations

from pathlib import Path

import yaml

from dialbench.schema import Dialogue
from dialbench.store import RunStore
from tests.conftest import RunCli

BOT = """
def reply(request):
    return f"We open at nine. ({request.language}, turn {len(request.messages)})"
"""
USER = """
def write(request):
    return "When does the library open on Saturdays?"
"""


def test_simulate_takes_a_python_chatbot_from_the_working_directory(
    cli: RunCli, tmp_path: Path
) -> None:
    (tmp_path / "mybot.py").write_text(BOT, encoding="utf-8")
    (tmp_path / "myuser.py").write_text(USER, encoding="utf-8")
    config = {
        "languages": ["en"],
        "seeds": {"contexts": 2},
        "user": {"models": ["python:myuser:write"]},
        "validator": {"model": None},
        "chatbots": {"models": ["local:qwen2.5-0.5b"]},
        "max_utterances": 4,
    }
    (tmp_path / "simulate.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
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
