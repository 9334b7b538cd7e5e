"""`dialbench simulate` through the real console script against a loopback HTTP endpoint."""

from __future__ import annotations

import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dialbench.schema import Dialogue
from dialbench.store import RunStore
from tests.simulate.conftest import WriteConfig

DIALBENCH = Path(sys.executable).with_name("dialbench")


def stored(run_dir: Path) -> dict[str, Dialogue]:
    with RunStore.open(run_dir, create=False) as store:
        return {d.id: d for d in store.records(Dialogue)}


def stored_count(run_dir: Path) -> int:
    try:
        with sqlite3.connect(run_dir / "dialbench.sqlite") as db:
            return int(db.execute("SELECT COUNT(*) FROM dialogues").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


def test_a_run_stores_every_dialogue_with_attempts_provenance_and_usage(
    cli, loopback_config: WriteConfig, tmp_path: Path
) -> None:
    done = cli("simulate", loopback_config(), "--run", "run", "--quiet")
    assert "generated now" in done.stdout
    dialogues = stored(tmp_path / "run")
    assert len(dialogues) == 8
    for dialogue in dialogues.values():
        assert dialogue.end_reason == "turn_cap"
        assert dialogue.source == "medal"
        assert [t.role for t in dialogue.turns] == ["user", "assistant"] * 3
        user_turns = [t for t in dialogue.turns if t.role == "user"]
        assert all(a.verdict == "accepted" for t in user_turns for a in t.attempts)
        assert dialogue.provenance is not None
        assert set(dialogue.provenance.models) == {"user", "assistant", "validator"}
        assert "simulate_validator_transcript" in dialogue.provenance.prompt_hashes
    first_turns = {d.seed.scene if d.seed else "": d.turns[0].text for d in dialogues.values()}
    assert len(first_turns) == 4
    by_scene = {}
    for d in dialogues.values():
        by_scene.setdefault(d.seed.scene if d.seed else "", set()).add(d.turns[0].text)
    assert all(len(texts) == 1 for texts in by_scene.values())
    with sqlite3.connect(tmp_path / "run" / "dialbench.sqlite") as db:
        roles = {row[0] for row in db.execute("SELECT role FROM llm_usage")}
    assert roles == {"user", "assistant", "validator"}


def test_a_rerun_makes_no_model_call_and_skips_stored_dialogues(
    cli, loopback_config: WriteConfig, latency_loopback, tmp_path: Path
) -> None:
    config = loopback_config()
    cli("simulate", config, "--run", "run", "--quiet")
    before = latency_loopback.stats()["requests"]
    again = cli("simulate", config, "--run", "run", "--quiet")
    assert latency_loopback.stats()["requests"] == before
    assert "already stored (skipped)" in again.stdout
    assert len(stored(tmp_path / "run")) == 8


@pytest.mark.slow
def test_a_killed_run_resumes_to_the_same_dialogues(
    cli, loopback_config: WriteConfig, tmp_path: Path
) -> None:
    config = loopback_config(seeds={"contexts": 8, "scenes": "scenes.txt"})
    killed = tmp_path / "killed"
    process = subprocess.Popen(
        [str(DIALBENCH), "simulate", str(config), "--run", str(killed), "--quiet"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while stored_count(killed) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    partial = stored_count(killed)
    assert 3 <= partial < 16
    resumed = cli("simulate", config, "--run", killed, "--quiet")
    assert re.search(rf"already stored \(skipped\)\s*│\s*{partial}\s*│", resumed.stdout)
    cli("simulate", config, "--run", tmp_path / "clean", "--quiet")
    after_kill, clean = stored(killed), stored(tmp_path / "clean")
    assert len(clean) == 16
    assert {i: d.turns for i, d in after_kill.items()} == {i: d.turns for i, d in clean.items()}


def test_dry_run_shows_the_coverage_without_a_run(
    cli, loopback_config: WriteConfig, tmp_path: Path
) -> None:
    done = cli(
        "simulate", loopback_config(), "--dry-run", "--languages", "en,zh,de", "--contexts", "4"
    )
    assert "Seed contexts by axis" in done.stdout
    assert "Germany" in done.stdout
    assert not (tmp_path / "runs").exists()


def test_a_bad_config_is_one_clear_line_with_file_line_and_field(cli, tmp_path: Path) -> None:
    config = tmp_path / "bad.yaml"
    config.write_text(
        "languages: [en]\nchatbots:\n  models: [local:qwen2.5-0.5b]\n  params: {temprature: 0.5}\n",
        encoding="utf-8",
    )
    done = cli("simulate", config, ok=False)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert (
        "bad.yaml:4: field 'chatbots.params.temprature': Extra inputs are not permitted"
        in done.stderr
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("languages: [en]\n", "bad.yaml:1: field 'chatbots': Field required"),
        ("languages: [en\nchatbots: {}\n", "bad.yaml:2: not valid YAML"),
        ("- en\n", "bad.yaml: a simulation config is a YAML mapping"),
        (
            "languages: [en]\nchatbots: {models: [nobackend]}\n",
            "model spec 'nobackend' has no backend",
        ),
        (
            "languages: [en]\nseeds: {scenes: missing.jsonl}\nchatbots: {models: [local:x]}\n",
            "missing.jsonl: no such scene file",
        ),
    ],
)
def test_config_problems_are_located(cli, tmp_path: Path, text: str, expected: str) -> None:
    config = tmp_path / "bad.yaml"
    config.write_text(text, encoding="utf-8")
    done = cli("simulate", config, "--dry-run", ok=False)
    assert done.returncode == 1
    assert expected in done.stderr


def test_a_call_that_fails_for_good_is_stored_as_error_and_retried_next_run(
    cli, loopback_config: WriteConfig, latency_loopback, tmp_path: Path
) -> None:
    """The server fails a prompt's first request only, so the retry of the run succeeds."""
    scenes = tmp_path / "failing.txt"
    scenes.write_text("Someone plans a picnic. [[fault:400]]\n", encoding="utf-8")
    validator = {"model": latency_loopback.spec("judge"), "form": "transcript"}
    config = loopback_config(
        seeds={"contexts": 1, "scenes": str(scenes)},
        validator={**validator, "first_turn_attempts": 1},
    )
    first = cli("simulate", config, "--run", "run", "--quiet", ok=False)
    assert first.returncode == 1
    assert "every one of the 2 dialogues generated ended in error" in first.stderr
    assert re.search(r"ended: error\s*│\s*2\s*│", first.stdout)
    errors = stored(tmp_path / "run")
    assert all(d.end_reason == "error" for d in errors.values())
    assert all("HTTP 400" in str(d.metadata["error"]) for d in errors.values())
    second = cli("simulate", config, "--run", "run", "--quiet")
    assert re.search(r"generated now\s*│\s*2\s*│", second.stdout)
    retried = stored(tmp_path / "run")
    assert retried.keys() == errors.keys()
    assert {d.end_reason for d in retried.values()} == {"validation_failed"}
