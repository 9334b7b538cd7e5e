"""`kill -9` at any moment leaves a consistent store: an import is there in whole batches, and
run again it adds the rest, nothing twice."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import time
from pathlib import Path

from dialbench.io.importer import BATCH
from dialbench.schema import Dialogue
from dialbench.store import RunStore
from tests.conftest import DIALBENCH

DIALOGUES_PER_FILE = 8000


def write_file(path: Path, tag: str) -> None:
    with path.open("w", encoding="utf-8") as stream:
        for i in range(DIALOGUES_PER_FILE):
            turns = [
                {"role": "user", "text": f"{tag} question {i}"},
                {"role": "assistant", "text": f"{tag} answer {i} " + "说" * 40},
            ]
            stream.write(json.dumps({"language": "zh", "turns": turns}, ensure_ascii=False) + "\n")


def test_killed_imports_leave_whole_batches_only(tmp_path: Path) -> None:
    run = tmp_path / "run"
    files = []
    for tag in "abc":
        files.append(tmp_path / f"{tag}.jsonl")
        write_file(files[-1], tag)
    rng = random.Random(7)
    killed = 0
    for round_no in range(9):
        child = subprocess.Popen(
            [str(DIALBENCH), "import", str(files[round_no % 3]), "--run", str(run)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(rng.uniform(0.3, 2.0))
        if child.poll() is None:
            child.send_signal(signal.SIGKILL)
            killed += 1
        child.wait()
        with RunStore.open(run) as store:
            assert store.integrity_problems() == []
            assert store.count(Dialogue) % BATCH == 0
    assert killed >= 2, "the child finished too fast to be killed mid-import; make files bigger"
    for path in files:
        subprocess.run([str(DIALBENCH), "import", str(path), "--run", str(run)], check=True)
    with RunStore.open(run) as store:
        assert store.count(Dialogue) == 3 * DIALOGUES_PER_FILE
        statuses = {r.status for r in store.invocations()}
    assert "finished" in statuses
