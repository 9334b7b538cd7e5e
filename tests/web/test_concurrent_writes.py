"""No lost write: 20 annotators saving labels at once against `dialbench serve`, which is killed
(SIGKILL) while they write; every write it acknowledged is in the store afterwards. (The
benchmark runs the same load for two minutes, without the kill, and prints rates.)"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from annotator_load import drive, lost_writes, make_load_run
from serve_process import serve

from dialbench.store import RunStore

pytestmark = pytest.mark.slow
ANNOTATORS, SECONDS, KILLED_AFTER = 20, 20, 15


def test_every_acknowledged_write_is_stored_even_when_the_server_is_killed(
    tmp_path: Path,
) -> None:
    load = make_load_run(tmp_path / "run", ANNOTATORS, dialogues=12)
    with serve(load.path) as serving:
        killed_at: list[float] = []

        def kill() -> None:
            time.sleep(KILLED_AFTER)
            killed_at.append(time.monotonic())
            serving.process.kill()

        killer = threading.Thread(target=kill)
        killer.start()
        result = drive(serving.base, load, SECONDS)
        killer.join()
    before_kill = [problem for when, problem in result.failures if when < killed_at[0]]
    assert before_kill == []
    assert len({name for name, _ in result.acknowledged}) == ANNOTATORS
    assert result.writes >= ANNOTATORS * 10
    assert lost_writes(load, result) == []
    with RunStore.open(load.path, create=False) as store:
        assert store.integrity_problems() == []
        serve_runs = [run for run in store.runs() if run.command == "serve"]
    assert [run.status for run in serve_runs] == ["interrupted"]
