"""`dialbench judge` through an endpoint pool: 1 replica against N, one of them failing.

Rows: one endpoint without a pool (openai-compat, the baseline), the same endpoint as a pool of
one (the pool's own cost), and a pool of N replicas of which one fails.
Every replica answers in L seconds and takes C calls at a time (`--concurrency`, per replica),
so J judgments need at least J x L / (C x R) seconds on R replicas; the ratio printed is that
minimum over the measured wall time of the command, process start to exit (1.0 = ideal). The
minimum counts every replica as healthy, so the failing one's lost capacity shows in the ratio.
The failing replica answers a fraction F of its calls 503 after the same latency: the pool backs
it off and moves those calls to the others. "lost" counts judgments not stored ok (must be 0);
"per replica" is the calls each replica received. The workload is judge_throughput.py's.
Usage: .venv/bin/python benchmarks/endpoint_pool.py [--judgments 1200] [--latency 0.2]
       [--concurrency 32] [--replicas 4] [--failure-rate 0.5]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from _loopback import Loopback, start_loopback
from judge_throughput import dialogues, timed_judge

from dialbench.schema import Judgment
from dialbench.store import RunStore


def spec(replicas: list[Loopback], model: str, *, pooled: bool) -> str:
    if not pooled:
        return replicas[0].spec(model)
    return f"pool:{','.join(r.base_url for r in replicas)}#{model}"


def judged_ok(run_dir: Path) -> int:
    with RunStore.open(run_dir, create=False) as store:
        return sum(j.parse_status == "ok" for j in store.records(Judgment))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--judgments", type=int, default=1200)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--replicas", type=int, default=4)
    parser.add_argument("--failure-rate", type=float, default=0.5)
    args = parser.parse_args()
    healthy = [start_loopback(args.latency) for _ in range(args.replicas - 1)]
    failing = start_loopback(args.latency, failure_rate=args.failure_rate)
    try:
        print(
            f"L = {args.latency * 1000:.0f} ms, C = {args.concurrency} per replica, "
            f"{args.judgments} holistic judgments; the failing replica answers "
            f"{args.failure_rate:.0%} of its calls 503"
        )
        print(
            f"{'endpoints':<22} {'wall s':>7} {'minimum s':>9} {'ratio':>6} "
            f"{'judgments/s':>12} {'lost':>5}  per replica"
        )
        setups = [
            ("1, no pool", healthy[:1], False),
            ("pool of 1", healthy[:1], True),
            (f"pool of {args.replicas}, 1 failing", [failing, *healthy], True),
        ]
        with tempfile.TemporaryDirectory() as tmp:
            for row, (name, replicas, pooled) in enumerate(setups):
                run_dir = Path(tmp) / f"run-{row}"
                with RunStore.open(run_dir) as store, store.invocation("import") as run:
                    store.add(dialogues("holistic", args.judgments), run)
                before = [r.stats()["requests"] for r in replicas]
                judge = spec(replicas, f"judge-{row}", pooled=pooled)
                wall = timed_judge(run_dir, "holistic", judge, args.concurrency)
                calls = [r.stats()["requests"] - b for r, b in zip(replicas, before, strict=True)]
                minimum = args.judgments * args.latency / (args.concurrency * len(replicas))
                lost = args.judgments - judged_ok(run_dir)
                print(
                    f"{name:<22} {wall:>7.2f} {minimum:>9.2f} {minimum / wall:>6.2f} "
                    f"{args.judgments / wall:>12.0f} {lost:>5}  {' '.join(map(str, calls))}"
                )
    finally:
        for server in [*healthy, failing]:
            server.stop()


if __name__ == "__main__":
    main()
