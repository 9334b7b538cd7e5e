"""A killed job resumes without repeating a stored call; API keys never reach disk, logs,
exports, reports or the command line's output."""

from __future__ import annotations

import logging
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from loopback_server import Loopback

from dialbench import examples
from dialbench.llm.runner import Runner
from dialbench.llm.specs import ModelConfig
from tests.conftest import RunCli

JOB = textwrap.dedent(
    """
    import asyncio, sys
    from dialbench.llm.runner import Runner
    from dialbench.llm.specs import ModelConfig

    run_dir, spec, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with Runner(run_dir, quiet=True) as runner:
        model = runner.model(ModelConfig(spec=spec, max_concurrency=4))

        async def job():
            await runner.gather([model.chat([{"role": "user", "content": f"item {i}"}])
                                 for i in range(n)])

        runner.run_sync(job())
    """
)


def cached_rows(run_dir: Path) -> int:
    """Calls stored so far; 0 while the job has not yet created its store."""
    path = run_dir / "dialbench.sqlite"
    if not path.exists():
        return 0
    with sqlite3.connect(path) as db:
        try:
            return int(db.execute("SELECT COUNT(*) FROM llm_cache").fetchone()[0])
        except sqlite3.OperationalError:  # created, not yet migrated
            return 0


def test_killed_job_resumes_without_repeating_stored_calls(
    slow_loopback: Loopback, tmp_path: Path
) -> None:
    n = 60  # 15 waves of 4 calls of 0.2 s: about 3 s in all
    command = [sys.executable, "-c", JOB, str(tmp_path), slow_loopback.spec(), str(n)]
    start = int(slow_loopback.stats()["requests"])
    job = subprocess.Popen(command)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        time.sleep(0.1)
        if cached_rows(tmp_path) >= 12:
            break
    job.send_signal(signal.SIGKILL)
    job.wait()
    stored = cached_rows(tmp_path)
    assert 12 <= stored < n
    first_run_calls = int(slow_loopback.stats()["requests"]) - start
    # Calls in flight at the kill (at most 4) and any answered in the last instant are lost.
    assert stored <= first_run_calls <= stored + 8

    subprocess.run(command, check=True)
    second_run_calls = int(slow_loopback.stats()["requests"]) - start - first_run_calls
    assert second_run_calls == n - stored
    assert cached_rows(tmp_path) == n


SECRET = "sk-test-0123456789-do-not-leak"


def test_api_key_never_reaches_store_or_logs(
    loopback: Loopback,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("LOOPBACK_KEY", SECRET)
    caplog.set_level(logging.DEBUG)
    config = ModelConfig(spec=loopback.spec(), api_key_env="LOOPBACK_KEY", max_attempts=2)
    with Runner(tmp_path, quiet=True, run_id="run-1") as runner:
        model = runner.model(config, role="judge")

        async def job() -> None:
            prompts = ["fine", "[[fault:500]] retried", "[[fault:401]] refused"]
            await runner.gather([model.chat([{"role": "user", "content": p}]) for p in prompts])
            await model.yes_probability([{"role": "user", "content": "ok?"}])

        runner.run_sync(job())
        usage = runner.usage()
    assert loopback.requests() == 5
    with sqlite3.connect(tmp_path / "dialbench.sqlite") as db:
        saved = db.execute("SELECT run_id, role, model, record FROM llm_usage").fetchall()
    assert [row[:3] for row in saved] == [("run-1", "judge", model.spec)]
    assert '"failed_calls":1' in saved[0][3]
    stored = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.is_file())
    assert b"fine" in stored  # the store was written...
    assert SECRET.encode() not in stored  # ...and holds no key
    assert SECRET not in caplog.text
    assert "retrying" in caplog.text
    assert all(SECRET not in line.model_dump_json() for line in usage)
    assert SECRET not in repr(model.spec) + repr(config)


def test_api_key_never_reaches_exports_reports_or_output(
    loopback: Loopback, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: RunCli
) -> None:
    """The whole user path with a keyed endpoint: judge, export every record kind, report, stats."""
    monkeypatch.setenv("LOOPBACK_KEY", SECRET)
    run = tmp_path / "run"
    outputs = [cli("import", examples.bundled()["multilingual_dialogues"], "--run", run).stdout]
    judged = cli(
        "judge",
        run,
        "--protocol",
        "holistic",
        "--judge",
        loopback.spec(),
        "--api-key-env",
        "LOOPBACK_KEY",
        "--limit",
        "1",
        "--language",
        "en",
        ok=False,
    )
    # The loopback server echoes, which is no judgment: stored as unscored, and the exit says so.
    assert "every judgment is unscored" in judged.stderr
    outputs += [judged.stdout, judged.stderr]
    for records in ("dialogues", "judgments"):
        for fmt in ("jsonl", "parquet", "hf"):
            outputs.append(cli("export", run, "--records", records, "--format", fmt).stdout)
    outputs += [cli("report", run).stdout, cli("stats", run, "--json").stdout]
    outputs.append(cli("show", run, "--json").stdout)
    assert loopback.requests() > 0
    written = [p for p in run.rglob("*") if p.is_file()]
    assert any(p.suffix == ".html" for p in written)
    assert any(p.name == "judgments.jsonl" for p in written)
    assert all(SECRET.encode() not in p.read_bytes() for p in written)
    assert all(SECRET not in text for text in outputs)
