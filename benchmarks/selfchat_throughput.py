"""`dialbench selfchat` end to end against a loopback endpoint with injected latency.

Every model call takes L seconds. A self-chat of N utterances from a two-utterance ChatSEED is a
chain of N - 2 calls, so D self-chats at C in flight need at least D x (N - 2) x L / C seconds;
the ratio printed is that minimum over the wall time of the command, process start to exit
(1.0 = ideal). By default each C gets the self-chats that take 30 s at the ideal (the issue's
goal counts process start for runs that long). "rerun s" is the same command again (all stored).
Usage: .venv/bin/python benchmarks/selfchat_throughput.py [--seeds D] [--latency 0.2] [--n 10]
       [--concurrency 64 256]
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _loopback import start_loopback

from dialbench.schema import Dialogue, Turn
from dialbench.store import RunStore

DIALBENCH = Path(sys.executable).with_name("dialbench")


def seeds(count: int) -> list[Dialogue]:
    """ChatSEEDs whose words differ, so no call is answered from another one's cache entry."""
    return [
        Dialogue(
            language="en",
            source="mutual",
            turns=[
                Turn(role="user", text=f"Seed {i}: where did you park the car?"),
                Turn(role="assistant", text=f"Seed {i}: behind the station, as always."),
            ],
        )
        for i in range(count)
    ]


def timed_selfchat(run_dir: Path, spec: str, n: int, concurrency: int) -> float:
    command = [str(DIALBENCH), "selfchat", str(run_dir), "--model", spec, "--n", str(n)]
    command += ["--concurrency", str(concurrency), "--quiet"]
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, help="default: 30 s at the ideal, per C")
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--n", type=int, default=10, help="utterances, the seed's two included")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[64, 256])
    args = parser.parse_args()
    chain = args.n - 2
    server = start_loopback(args.latency)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            print(f"L = {args.latency * 1000:.0f} ms, self-chats of {chain} chained calls each")
            print(
                f"{'C':>4} {'D':>5} {'wall s':>7} {'minimum s':>9} {'ratio':>6} "
                f"{'requests':>9} {'expected':>9} {'rerun s':>8}"
            )
            for concurrency in args.concurrency:
                count = args.seeds or math.ceil(30 * concurrency / (chain * args.latency))
                run_dir = Path(tmp) / f"run-{concurrency}"
                with RunStore.open(run_dir) as store, store.invocation("import") as run:
                    store.add(seeds(count), run)
                spec = server.spec(f"bot-{concurrency}")
                before = server.stats()["requests"]
                wall = timed_selfchat(run_dir, spec, args.n, concurrency)
                requests = server.stats()["requests"] - before
                rerun = timed_selfchat(run_dir, spec, args.n, concurrency)
                assert requests == count * chain, requests
                minimum = count * chain * args.latency / concurrency
                print(
                    f"{concurrency:>4} {count:>5} {wall:>7.2f} {minimum:>9.2f} "
                    f"{minimum / wall:>6.2f} {requests:>9} {count * chain:>9} {rerun:>8.2f}"
                )
    finally:
        server.stop()


if __name__ == "__main__":
    main()
