"""What `dialbench import` makes of each capture today: for each file, its summary line (or its
error), the dialogues and their turns by role, how many tool turns carry a call id, and which
planted personal data survive in the stored records.

    /work/main/.venv/bin/python scripts/capture_client_logs/check_imports.py tests/io/captures

Run it with dialbench's own environment (it calls the `dialbench` next to the interpreter, or
on PATH); it needs nothing of the capture environment. Reads the run's SQLite store.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from conversations import (  # noqa: E402
    EXPECTED_DIALOGUES,
    EXPECTED_TOOL_TURNS,
    EXPECTED_TURNS,
    PLANTED_PERSONAL_DATA,
)


def _dialbench() -> str:
    beside = Path(sys.executable).parent / "dialbench"
    return str(beside) if beside.exists() else shutil.which("dialbench") or "dialbench"


def check(path: Path) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as run:
        done = subprocess.run(
            [_dialbench(), "import", str(path), "--run", run],
            capture_output=True,
            text=True,
            timeout=600,
        )
        said = " ".join((done.stdout + done.stderr).split())
        said = said[said.find(str(path)) :] if str(path) in said else said
        found: dict[str, object] = {"file": path.name, "rc": done.returncode, "says": said}
        store = Path(run) / "dialbench.sqlite"
        if done.returncode != 0 or not store.exists():
            return found
        with sqlite3.connect(store) as db:
            rows = [json.loads(r) for (r,) in db.execute("select record from dialogues")]
    roles: Counter[str] = Counter()
    with_ids = 0
    languages = Counter()
    for dialogue in rows:
        languages[dialogue.get("language")] += 1
        for turn in dialogue["turns"]:
            roles[turn["role"]] += 1
            with_ids += bool((turn.get("tool") or {}).get("call_id"))
    text = json.dumps(rows, ensure_ascii=False)
    found |= {
        "dialogues": len(rows),
        "turns": sum(roles.values()),
        "roles": dict(roles),
        "tool_call_ids": with_ids,
        "languages": dict(languages),
        "surviving": [d for d in PLANTED_PERSONAL_DATA if d in text],
    }
    return found


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) if argv else HERE.parents[1] / "tests" / "io" / "captures"
    print(f"expected: {EXPECTED_DIALOGUES} dialogues, {EXPECTED_TURNS} turns, ", end="")
    print(f"{EXPECTED_TOOL_TURNS} tool turns")
    for path in sorted(folder.glob("*.jsonl")):
        print(json.dumps(check(path), ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
