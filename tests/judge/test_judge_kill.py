"""`dialbench judge` killed with SIGKILL mid-run resumes without repeating a stored call or
duplicating a judgment: the judge is a loopback OpenAI-compatible server with latency."""

from __future__ import annotations

import re
import signal
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from dialbench.schema import Judgment
from dialbench.store import RunStore
from tests.conftest import DIALBENCH
from tests.llm.loopback_server import Loopback, answered_dialogues, start_loopback

N = 40  # 10 batches of 4 concurrent calls of 0.2 s
DIALOGUES = answered_dialogues(N, "fr")


@pytest.fixture(scope="module")
def server() -> Iterator[Loopback]:
    loopback = start_loopback(0.2)
    yield loopback
    loopback.stop()


def count(run: Path, table: str) -> int:
    with sqlite3.connect(run / "dialbench.sqlite") as db:
        return int(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])


def done_questions(run: Path) -> set[int]:
    """The questions whose judgment is stored, or whose call is in the cache."""
    number = {d.id: i for i, d in enumerate(DIALOGUES)}
    with sqlite3.connect(run / "dialbench.sqlite") as db:
        judged = {number[row[0]] for row in db.execute("SELECT dialogue_id FROM judgments")}
        requests = [row[0] for row in db.execute("SELECT request FROM llm_cache")]
    return judged | {int(m) for r in requests for m in re.findall(r"question (\d+) ", r)}


def test_a_killed_judge_run_resumes(server: Loopback, tmp_path: Path) -> None:
    run = tmp_path / "run"
    with RunStore.open(run) as store, store.invocation("import") as record:
        store.add(DIALOGUES, record)
    command = [
        str(DIALBENCH),
        *("judge", str(run), "--protocol", "holistic", "--judge", server.spec("judge")),
        *("--store-every", "4", "--quiet"),
    ]
    start = int(server.stats()["requests"])
    job = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and count(run, "judgments") < 8:
        time.sleep(0.05)
    job.send_signal(signal.SIGKILL)
    job.wait()
    killed_run_calls = int(server.stats()["requests"]) - start
    judged, done = count(run, "judgments"), done_questions(run)
    assert 8 <= judged < N

    subprocess.run(command, check=True, capture_output=True, timeout=120)
    resumed_run_calls = int(server.stats()["requests"]) - start - killed_run_calls
    # A question is asked again only if neither its judgment nor its call was stored.
    assert resumed_run_calls == N - len(done)
    with RunStore.open(run) as store:
        stored = list(store.records(Judgment))
    assert len(stored) == N
    assert {j.target.dialogue_id for j in stored} == {d.id for d in DIALOGUES}
    assert all(j.result == {"quality": 1, "reason": "answers the question"} for j in stored)
