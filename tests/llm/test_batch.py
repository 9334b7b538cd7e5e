"""`dialbench judge --batch` and `dialbench batch` against a real loopback Batch API."""

from __future__ import annotations

import json
import signal
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from loopback_server import Loopback, start_loopback

from dialbench.errors import DialbenchError
from dialbench.judge.api import judge
from dialbench.judge.config import JudgeConfig
from dialbench.llm.backends.scripted import register_script
from dialbench.llm.batch import BatchError, load_batches, unanswered, wait_for_batches
from dialbench.llm.preflight import ModelsUnavailable
from dialbench.llm.specs import ModelConfig
from dialbench.schema import Dialogue, Judgment, Turn
from dialbench.store import RunStore
from tests.conftest import DIALBENCH, RunCli

pytestmark = pytest.mark.slow

VERDICT = json.dumps({"reason": "answers the question", "quality": 1})
QUESTIONS = ["What is 2+2?", "今天星期几？", "Wie spät ist es?", "Quelle heure est-il ?"]


def batch_stats(server: Loopback) -> dict[str, Any]:
    with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/batch-stats") as reply:
        stats: dict[str, Any] = json.load(reply)
    return stats


def make_run(run_dir: Path, extra: str = "") -> None:
    dialogues = [
        Dialogue(
            language="en",
            turns=[
                Turn(role="user", text=f"{question} [[replies:{VERDICT}]] {extra}"),
                Turn(role="assistant", text=f"answer {i}"),
            ],
        )
        for i, question in enumerate(QUESTIONS)
    ]
    with RunStore.open(run_dir) as store, store.invocation("import") as run:
        store.add(dialogues, run)


def judgments(run_dir: Path) -> list[Judgment]:
    with RunStore.open(run_dir, create=False) as store:
        return list(store.records(Judgment))


def judge_config(server: Loopback) -> JudgeConfig:
    return JudgeConfig(protocol="holistic", judges=[ModelConfig(spec=server.spec("judge"))])


@pytest.fixture
def server() -> Iterator[Loopback]:
    """A fresh server: batches finish at their first poll."""
    loopback = start_loopback()
    yield loopback
    loopback.stop()


@pytest.fixture
def batch_server() -> Iterator[Loopback]:
    """Batches finish at their 6th poll: the test kills a poller after its 2nd."""
    server = start_loopback(batch_polls=6)
    yield server
    server.stop()


def test_batch_submit_kill_resume_merge_then_zero_calls(
    batch_server: Loopback, tmp_path: Path, cli: RunCli
) -> None:
    run = tmp_path / "run"
    make_run(run)
    judge_args = ["judge", str(run), "-p", "holistic", "-j", batch_server.spec("judge"), "-q"]

    submitted = cli(*judge_args, "--batch")
    [record] = load_batches(run)
    assert record.id in submitted.stdout
    assert "4 deferred to a batch" in submitted.stdout
    assert judgments(run) == []  # deferred: neither unscored nor labelled
    assert batch_server.stats()["requests"] == 0

    again = judge(judge_config(batch_server), run, quiet=True, batch=True)  # while pending
    assert again.batches == [record.id]  # the same batch, no other
    assert batch_stats(batch_server)["batches"] == 1

    poller = subprocess.Popen([str(DIALBENCH), "batch", "wait", str(run), "--interval", "0.2"])
    deadline = time.monotonic() + 30
    while batch_stats(batch_server)["polls"] < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    poller.send_signal(signal.SIGKILL)
    poller.wait()
    [still] = load_batches(run)
    assert still.pending, "the batch finished before the poller was killed"

    cli("batch", "wait", run, "--interval", "0.2")
    [merged] = load_batches(run)
    assert (merged.id, merged.done, merged.merged, merged.failed) == (record.id, True, 4, 0)
    assert batch_stats(batch_server)["batches"] == 1

    completed = cli(*judge_args)
    assert "4 ok, 0 unscored" in completed.stdout
    assert batch_server.stats()["requests"] == 0  # every answer came from the merged batch
    assert [(j.result or {}).get("quality") for j in judgments(run)] == [1] * 4


def test_a_failed_batch_is_a_clear_error_and_its_calls_can_be_made_live(
    server: Loopback, tmp_path: Path
) -> None:
    make_run(tmp_path, extra="[[batch:failed]]")
    summary = judge(judge_config(server), tmp_path, quiet=True, batch=True)
    assert summary.judges[0].deferred == 4
    records = wait_for_batches(tmp_path, interval_s=0.1, timeout_s=30)
    reason = unanswered(records)
    assert reason is not None
    assert "(failed): 4 of 4 request(s) unanswered" in reason
    assert "injected validation failure" in reason
    live = judge(judge_config(server), tmp_path, quiet=True)
    assert (live.judges[0].ok, server.stats()["requests"]) == (4, 4)


def test_an_expired_batch_merges_what_it_answered(server: Loopback, tmp_path: Path) -> None:
    make_run(tmp_path, extra="[[batch:expired]]")
    judge(judge_config(server), tmp_path, quiet=True, batch=True)
    [record] = wait_for_batches(tmp_path, interval_s=0.1, timeout_s=30)
    assert (record.status, record.merged, record.failed) == ("expired", 2, 2)
    rerun = judge(judge_config(server), tmp_path, quiet=True, batch=True)
    assert (rerun.judges[0].ok, rerun.judges[0].deferred) == (2, 2)
    [_, second] = load_batches(tmp_path)  # the unanswered half, in a new batch
    assert len(second.requests) == 2


def test_a_malformed_output_line_is_named(server: Loopback, tmp_path: Path) -> None:
    make_run(tmp_path, extra="[[batch:malformed]]")
    judge(judge_config(server), tmp_path, quiet=True, batch=True)
    with pytest.raises(BatchError, match=r"file file-\d+ line 2: .*3 other answers are merged"):
        wait_for_batches(tmp_path, interval_s=0.1, timeout_s=30)
    [record] = load_batches(tmp_path)
    assert (record.done, record.merged, record.failed) == (True, 3, 1)


def test_errors_in_the_batch_flow_are_one_line(tmp_path: Path, cli: RunCli) -> None:
    make_run(tmp_path)
    spec = register_script("in-process", lambda request: VERDICT)
    local = JudgeConfig(protocol="holistic", judges=[ModelConfig(spec=spec)])
    with pytest.raises(DialbenchError, match="batches need an openai, openai-compat or pool"):
        judge(local, tmp_path, quiet=True, batch=True)
    gone = start_loopback()
    gone.stop()
    with pytest.raises(ModelsUnavailable, match="cannot connect to"):
        judge(judge_config(gone), tmp_path, quiet=True, batch=True)
    (tmp_path / "batches").mkdir(exist_ok=True)
    (tmp_path / "batches" / "broken.json").write_text('{"id": "broken"}', encoding="utf-8")
    result = cli("batch", "status", tmp_path, ok=False)
    assert result.returncode == 1
    assert result.stderr.startswith("error: ")
    assert "broken.json: field 'model'" in result.stderr
    assert "Traceback" not in result.stderr
