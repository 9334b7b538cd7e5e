"""`dialbench judge` end to end against a loopback endpoint with injected latency.

Every call takes L seconds, so N judgments at concurrency C need at least N x L / C seconds; the
ratio printed is that minimum over the measured wall time of the command, process start to
exit (1.0 = ideal). The issue's goal counts process start for runs of at least 30 s, so by default
each concurrency gets the judgments that take 30 s at the ideal (N = 30 x C / L).
Each dialogue's first turn tells the loopback server to answer a valid judgment, and differs per
dialogue, so no call is answered from another's cache entry.
`--protocol holistic` judges N dialogues; `--protocol arena` judges N BotChat comparisons: N/2
ChatSEEDs with a self-chat by each of two models, each pair in both orders (the judging part of
`dialbench arena`, without the ratings). "rerun s" is the same command again (zero calls).
Usage: .venv/bin/python benchmarks/judge_throughput.py [--protocol holistic|arena]
       [--judgments N] [--latency 0.2] [--concurrency 64 256]
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _loopback import start_loopback

from dialbench.schema import Dialogue, Participants, Turn
from dialbench.store import RunStore

DIALBENCH = Path(sys.executable).with_name("dialbench")
ANSWERS = {
    "holistic": json.dumps({"reason": "answers the question", "quality": 1}),
    "arena": json.dumps({"choice": "Conversation 2", "reason": "the second repeats itself"}),
}


def dialogues(protocol: str, judgments: int) -> list[Dialogue]:
    """Dialogues that make `judgments` judgments under the protocol."""
    directive = f"[[replies:{ANSWERS[protocol]}]]"
    if protocol == "holistic":
        return [
            Dialogue(
                language="en",
                turns=[
                    Turn(role="user", text=f"question {i} {directive}"),
                    Turn(role="assistant", text=f"answer {i}"),
                ],
            )
            for i in range(judgments)
        ]
    return [
        Dialogue(
            language="en",
            source="selfchat",
            participants=Participants(user=model, assistant=model),
            turns=[
                Turn(role="user", text=f"seed {i} {directive}"),
                Turn(role="assistant", text=f"{model} answers seed {i}"),
            ],
            end_reason="turn_cap",
            metadata={"chatseed_dialogue": f"seed-{i}"},
        )
        for i in range(judgments // 2)
        for model in ("bot-a", "bot-b")
    ]


def timed_judge(run_dir: Path, protocol: str, spec: str, concurrency: int) -> float:
    command = [str(DIALBENCH), "judge", str(run_dir), "--protocol", protocol, "--quiet"]
    command += ["--judge", spec, "--concurrency", str(concurrency)]
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--protocol", choices=sorted(ANSWERS), default="holistic")
    parser.add_argument("--judgments", type=int, help="default: 30 s at the ideal, per C")
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[64, 256])
    args = parser.parse_args()
    server = start_loopback(args.latency)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            print(f"L = {args.latency * 1000:.0f} ms, {args.protocol} judgments")
            print(
                f"{'C':>4} {'N':>6} {'wall s':>7} {'minimum s':>9} {'ratio':>6} "
                f"{'judgments/s':>12} {'requests':>9} {'rerun s':>8}"
            )
            for concurrency in args.concurrency:
                n = args.judgments or math.ceil(30 * concurrency / args.latency)
                run_dir = Path(tmp) / f"run-{concurrency}"
                with RunStore.open(run_dir) as store, store.invocation("import") as run:
                    store.add(dialogues(args.protocol, n), run)
                spec = server.spec(f"judge-{concurrency}")
                before = server.stats()["requests"]
                wall = timed_judge(run_dir, args.protocol, spec, concurrency)
                requests = server.stats()["requests"] - before
                rerun = timed_judge(run_dir, args.protocol, spec, concurrency)
                assert requests == n, requests
                minimum = n * args.latency / concurrency
                print(
                    f"{concurrency:>4} {n:>6} {wall:>7.2f} {minimum:>9.2f} {minimum / wall:>6.2f} "
                    f"{n / wall:>12.0f} {requests:>9} {rerun:>8.2f}"
                )
    finally:
        server.stop()


if __name__ == "__main__":
    main()
