"""A run where part of the work failed says so in its closing line, and `--strict` makes it exit
1 (for CI); without it the command still exits 0, the failures stored for the next run."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.conftest import RunCli

BOT = """
def reply(request):
    if request.language == "de":
        raise RuntimeError("the German backend is down")
    return "We open at nine."
"""
USER = """
def write(request):
    return "When does the library open on Saturdays?"
"""


def test_simulate_names_its_failures_by_reason_and_strict_exits_1(
    cli: RunCli, tmp_path: Path
) -> None:
    (tmp_path / "halfbot.py").write_text(BOT, encoding="utf-8")
    (tmp_path / "asker.py").write_text(USER, encoding="utf-8")
    config = {
        "languages": ["en", "de"],
        "seeds": {"contexts": 2},
        "user": {"models": ["python:asker:write"]},
        "validator": {"model": None},
        "chatbots": {"models": [{"spec": "python:halfbot:reply", "max_attempts": 1}]},
        "max_utterances": 2,
    }
    (tmp_path / "simulate.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")

    done = cli("simulate", "simulate.yaml", "--run", "run", "--quiet")
    failed = "2 × python:halfbot:reply: RuntimeError: the German backend is down"
    assert f"2 of 4 dialogues failed: {failed}" in done.stderr
    assert "the next run retries them" in done.stderr

    strict = cli("simulate", "simulate.yaml", "--run", "run", "--quiet", "--strict", ok=False)
    assert strict.returncode == 1
    assert "2 of 2 dialogues failed" in strict.stderr
    assert "Traceback" not in strict.stderr

    stage = {"stage": "simulate", **config}
    pipeline = {"run": "piped", "stages": [stage]}
    (tmp_path / "pipeline.yaml").write_text(yaml.safe_dump(pipeline), encoding="utf-8")
    piped = cli("run", "pipeline.yaml", "--strict", ok=False)
    assert piped.returncode == 1
    assert f"piped holds: 2 of 4 dialogues failed: {failed}" in piped.stderr
    assert "run the same command again: it retries exactly what failed" in piped.stderr
