"""No lost write: 20 annotators saving labels at once against `dialbench serve`, while the
organiser's page reloads, and the server is killed (SIGKILL) while they write; every write it
acknowledged is in the store afterwards, and the process that computed the page's agreement
ends with it. (The benchmark runs the same load for two minutes, without the kill, and prints
rates.)"""

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

        children: list[int] = []

        def kill() -> None:
            time.sleep(KILLED_AFTER)
            children.extend(_children(serving.process.pid))
            killed_at.append(time.monotonic())
            serving.process.kill()

        killer = threading.Thread(target=kill)
        killer.start()
        result = drive(serving.base, load, SECONDS, serving.organiser_link)
        killer.join()
    before_kill = [problem for when, problem in result.failures if when < killed_at[0]]
    assert before_kill == []
    assert children  # the agreement's process (refreshed every 10 s), and multiprocessing's
    deadline = time.monotonic() + 10
    while any(map(_running, children)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert [pid for pid in children if _running(pid)] == []
    assert len({name for name, _ in result.acknowledged}) == ANNOTATORS
    assert result.writes >= ANNOTATORS * 10
    assert lost_writes(load, result) == []
    with RunStore.open(load.path, create=False) as store:
        assert store.integrity_problems() == []
        serve_runs = [run for run in store.invocations() if run.command == "serve"]
    assert [run.status for run in serve_runs] == ["interrupted"]


def _stat(pid: str) -> list[str]:
    """/proc's state and parent of a process (after its name, which may hold anything)."""
    try:
        return (Path("/proc") / pid / "stat").read_text().rsplit(")", 1)[1].split()
    except OSError:  # gone
        return []


def _children(pid: int) -> list[int]:
    return [int(p.name) for p in Path("/proc").glob("[0-9]*") if _stat(p.name)[1:2] == [str(pid)]]


def _running(pid: int) -> bool:
    """Not gone, and not a zombie that no one has reaped yet."""
    return _stat(str(pid))[:1] not in ([], ["Z"])
