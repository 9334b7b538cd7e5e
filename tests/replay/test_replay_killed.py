"""`dialbench replay` killed with -9 half-way and run again: every replay stored once, and no
reply asked twice but the one in flight when it died."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

from dialbench.schema import Dialogue, Turn
from dialbench.store import RunStore
from tests.conftest import DIALBENCH

BOT = """
import time
from pathlib import Path

def reply(request):
    with Path("calls.log").open("a") as log:
        log.write(request.messages[-1].content + "\\n")
    time.sleep(0.15)
    return "candidate: " + request.messages[-1].content
"""
DIALOGUES = 8


def recorded(i: int) -> Dialogue:
    return Dialogue(
        language="de",
        source="production",
        turns=[
            Turn(role="user", text=f"Frage {i}"),
            Turn(role="assistant", text=f"Antwort {i}"),
            Turn(role="user", text=f"Noch eine Frage {i}"),
            Turn(role="assistant", text=f"Noch eine Antwort {i}"),
        ],
    )


def candidate_replays(run: Path) -> list[Dialogue]:
    with RunStore.open(run) as store:
        return list(
            store.records(Dialogue, source="replay", assistant_model="python:slowbot:reply")
        )


def test_a_killed_replay_resumes_without_repeating_or_losing_work(tmp_path: Path) -> None:
    (tmp_path / "slowbot.py").write_text(BOT, encoding="utf-8")
    run = tmp_path / "run"
    with RunStore.open(run) as store, store.invocation("test") as record:
        store.add([recorded(i) for i in range(DIALOGUES)], record)
    command = [
        str(DIALBENCH),
        "replay",
        str(run),
        "--candidate",
        "python:slowbot:reply",
        "--mode",
        "every",
        "--concurrency",
        "1",
        "--quiet",
    ]
    child = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while len(candidate_replays(run)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    child.send_signal(signal.SIGKILL)
    child.wait()
    stored_when_killed = len(candidate_replays(run))
    assert 2 <= stored_when_killed < DIALOGUES, "kill the replay half-way"
    subprocess.run(command, cwd=tmp_path, check=True, stdout=subprocess.DEVNULL)
    replays = candidate_replays(run)
    assert len(replays) == DIALOGUES
    assert all(
        r.end_reason == "natural_end" and r.metadata["replayed_turns"] == [1, 3] for r in replays
    )
    asked = (tmp_path / "calls.log").read_text(encoding="utf-8").splitlines()
    assert len(asked) - len(set(asked)) <= 1  # at most the reply in flight at the kill
    assert len(set(asked)) == 2 * DIALOGUES
