"""`dialbench run` as users run it: a subprocess against a loopback endpoint with latency,
stopped with Ctrl-C halfway, resumed without repeating a stored call, then a no-op."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.conftest import DIALBENCH
from tests.llm.loopback_server import Loopback, answered_dialogues, start_loopback

N = 60


@pytest.fixture(scope="module")
def server() -> Iterator[Loopback]:
    loopback = start_loopback(0.2)
    yield loopback
    loopback.stop()


def write_pipeline(folder: Path, server: Loopback) -> Path:
    lines = [d.model_dump_json() + "\n" for d in answered_dialogues(N, "pt")]
    (folder / "dialogues.jsonl").write_text("".join(lines), encoding="utf-8")
    judge = {"spec": server.spec("judge"), "max_concurrency": 4}
    pipeline = {
        "run": str(folder / "run"),
        "stages": [
            {"stage": "import", "file": "dialogues.jsonl"},
            {"stage": "judge", "protocol": "holistic", "judges": [judge]},
        ],
    }
    path = folder / "pipeline.yaml"
    path.write_text(yaml.safe_dump(pipeline), encoding="utf-8")
    return path


def judgments(run: Path) -> int:
    try:
        with sqlite3.connect(run / "dialbench.sqlite") as db:
            return int(db.execute("SELECT COUNT(*) FROM judgments").fetchone()[0])
    except sqlite3.OperationalError:  # the file is there, its tables not yet
        return 0


@pytest.mark.slow
def test_ctrl_c_stops_cleanly_and_the_next_run_resumes(server: Loopback, tmp_path: Path) -> None:
    pipeline = write_pipeline(tmp_path, server)
    command = [str(DIALBENCH), "run", str(pipeline)]
    start = server.requests()
    job = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and (
        not (tmp_path / "run" / "dialbench.sqlite").exists() or judgments(tmp_path / "run") < 16
    ):
        time.sleep(0.05)
    job.send_signal(signal.SIGINT)
    output, _ = job.communicate(timeout=300)
    assert job.returncode == 130, output
    assert "stopped: run the same command again to resume" in output
    first_calls = server.requests() - start
    assert 16 <= first_calls < N

    resumed = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "[import] up to date" in resumed.stdout
    # Every call the stopped run made is in the cache: none is made twice.
    assert server.requests() - start == N
    assert judgments(tmp_path / "run") == N

    again = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0
    assert "[judge] up to date" in again.stdout
    assert server.requests() - start == N


def test_the_dry_run_prints_the_plan_and_runs_nothing(server: Loopback, tmp_path: Path) -> None:
    pipeline = write_pipeline(tmp_path, server)
    start = server.requests()
    done = subprocess.run(
        [str(DIALBENCH), "run", str(pipeline), "--dry-run"],
        capture_output=True,
        text=True,
        timeout=300,
        env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr
    assert "Plan (estimates)" in done.stdout
    assert "60" in done.stdout  # one judge call per imported dialogue
    assert "critical path" in done.stdout
    assert server.requests() == start
    assert not (tmp_path / "run" / "dialbench.sqlite").exists()


def test_a_bad_pipeline_is_one_line_and_exit_1(tmp_path: Path) -> None:
    path = tmp_path / "pipeline.yaml"
    path.write_text("stages:\n  - stage: judge\n    protocol: issues\n    judgse: []\n")
    done = subprocess.run([str(DIALBENCH), "run", str(path)], capture_output=True, text=True)
    assert done.returncode == 1
    assert f"{path}:4" in done.stderr
    assert "judgse" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_stage_shows_its_progress_in_a_log(server: Loopback, tmp_path: Path) -> None:
    """`dialbench run > log 2>&1`: a judge stage's progress is a plain line every so often."""
    pipeline = write_pipeline(tmp_path, server)
    done = subprocess.run(
        [str(DIALBENCH), "run", str(pipeline)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "DIALBENCH_PROGRESS_EVERY_S": "0.5"},
        check=True,
    )
    lines = [line for line in done.stderr.splitlines() if f"/{N}" in line]
    assert len(lines) >= 2, done.stderr  # a line while it runs, and the last
    assert lines[-1].split()[-4] == f"{N}/{N}", lines[-1]


def test_a_stage_done_with_failures_is_retried_and_then_up_to_date(
    server: Loopback, tmp_path: Path
) -> None:
    """A judge whose calls fail for three dialogues of twelve (HTTP 500, one try each) is done
    with failures: the stage after it reads an incomplete run, the plan says what is left, and
    the next run makes the three calls only, runs the stage after it again, and is done."""
    fine = answered_dialogues(12, "es")
    for dialogue in fine[:3]:  # the first request of each fails, the next is answered
        dialogue.turns[0].text = "[[fault:500]]" + dialogue.turns[0].text
    lines = [d.model_dump_json() + "\n" for d in fine]
    (tmp_path / "dialogues.jsonl").write_text("".join(lines), encoding="utf-8")
    judge = {"spec": server.spec("judge"), "max_attempts": 1}
    pipeline = tmp_path / "pipeline.yaml"
    stages = [
        {"stage": "import", "file": "dialogues.jsonl"},
        {"stage": "judge", "protocol": "holistic", "judges": [judge]},
        {"stage": "report", "name": "after"},
    ]
    pipeline.write_text(yaml.safe_dump({"run": str(tmp_path / "run"), "stages": stages}))

    def run(*options: str) -> subprocess.CompletedProcess[str]:
        command = [str(DIALBENCH), "run", str(pipeline), *options]
        wide = {**os.environ, "COLUMNS": "200"}
        return subprocess.run(command, capture_output=True, text=True, timeout=300, env=wide)

    start = server.requests()
    first = run()
    assert first.returncode == 0, first.stdout + first.stderr
    assert "[judge] done with failures" in first.stdout
    assert "[judge] left: 3 of 12 judgments failed: 3 × " in first.stdout
    assert "[after] done with failures" in first.stdout  # it read the judge's partial output
    assert "2 stage(s) done with failures: run the same command again" in first.stdout
    assert server.requests() - start == 12

    plan = run("--dry-run")
    assert "[judge] done with failures before (3 of 12 judgments failed" in plan.stdout
    assert "to retry" in plan.stdout
    accepted = run("--dry-run", "--accept-failures")
    assert "to retry" not in accepted.stdout
    assert server.requests() - start == 12

    second = run()
    assert second.returncode == 0, second.stdout + second.stderr
    assert "[import] up to date" in second.stdout
    assert "[judge] done (" in second.stdout
    assert "[after] done (" in second.stdout
    assert server.requests() - start == 15  # exactly the three that failed
    assert judgments(tmp_path / "run") == 12

    third = run()
    assert "3 up to date" in third.stdout
    assert server.requests() - start == 15
