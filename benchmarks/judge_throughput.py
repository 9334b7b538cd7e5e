"""`dialbench judge` end to end against a loopback endpoint with injected latency.

Every call takes L seconds, so N judgments at concurrency C need at least N x L / C seconds; the
ratio printed is that minimum over the measured wall time of the command, process start to
exit (1.0 = ideal). Each dialogue's first turn tells the loopback server to answer a valid
holistic judgment, and differs per dialogue, so no call is answered from another's cache entry.
"rerun s" is the same command again over the judged store (zero calls).
Usage: .venv/bin/python benchmarks/judge_throughput.py [--dialogues 1200] [--latency 0.2]
       [--concurrency 64 256]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _loopback import start_loopback

from dialbench.schema import Dialogue, Turn
from dialbench.store import RunStore

DIALBENCH = Path(sys.executable).with_name("dialbench")
ANSWER = json.dumps({"reason": "answers the question", "quality": 1})


def dialogues(n: int) -> list[Dialogue]:
    return [
        Dialogue(
            language="en",
            turns=[
                Turn(role="user", text=f"question {i} [[replies:{ANSWER}]]"),
                Turn(role="assistant", text=f"answer {i}"),
            ],
        )
        for i in range(n)
    ]


def timed_judge(run_dir: Path, spec: str, concurrency: int) -> float:
    command = [str(DIALBENCH), "judge", str(run_dir), "--protocol", "holistic", "--quiet"]
    command += ["--judge", spec, "--concurrency", str(concurrency)]
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dialogues", type=int, default=1200)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[64, 256])
    args = parser.parse_args()
    server = start_loopback(args.latency)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            print(f"L = {args.latency * 1000:.0f} ms, {args.dialogues} holistic judgments")
            print(
                f"{'C':>4} {'wall s':>7} {'minimum s':>9} {'ratio':>6} {'judgments/s':>12} "
                f"{'requests':>9} {'rerun s':>8}"
            )
            for concurrency in args.concurrency:
                run_dir = Path(tmp) / f"run-{concurrency}"
                with RunStore.open(run_dir) as store, store.run("import") as run:
                    store.add(dialogues(args.dialogues), run)
                spec = server.spec(f"judge-{concurrency}")
                before = server.stats()["requests"]
                wall = timed_judge(run_dir, spec, concurrency)
                requests = server.stats()["requests"] - before
                rerun = timed_judge(run_dir, spec, concurrency)
                minimum = args.dialogues * args.latency / concurrency
                print(
                    f"{concurrency:>4} {wall:>7.2f} {minimum:>9.2f} {minimum / wall:>6.2f} "
                    f"{args.dialogues / wall:>12.0f} {requests:>9} {rerun:>8.2f}"
                )
    finally:
        server.stop()


if __name__ == "__main__":
    main()
