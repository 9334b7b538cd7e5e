"""A MEDAL-shaped pipeline in one process and sharded on a local Ray cluster of two workers.

The workload, at reduced size: simulate (a user model with a validator on one loopback endpoint,
two chatbots on another) over several languages, then the issues judge on a third endpoint.
Every call takes L seconds and a fraction F of calls fails with 503 (retried with backoff).
Printed per executor: model calls, wall time of the stages (Ray's start-up apart), calls per
second, and that over the ideal C / L per process (C dialogues or judgments in flight, each one
call at a time), and the distinct calls the run store caches: Ray can make more calls than that,
because a shard's cache answers its own calls only, and the loopback's echo replies make
dialogues of different contexts ask identical questions. Then a Ray run whose simulate worker
is killed mid-run (Ray retries the shard, which resumes from its store and cache): its merged
store must equal the clean run's (same dialogues, turns and judgments).
Usage: .venv/bin/python benchmarks/ray_scaling.py [--contexts 8] [--latency 0.2]
       [--failure-rate 0.05] [--concurrency 16]
"""

from __future__ import annotations

import argparse
import os
import signal
import sqlite3
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import ray
import yaml
from _loopback import Loopback, start_loopback

from dialbench.pipeline.config import load_pipeline
from dialbench.pipeline.execute import PipelineResult, run_pipeline
from dialbench.pipeline.executors import ExecutorOptions, create_executor
from dialbench.schema import Dialogue, Invocation, Judgment
from dialbench.store import STORE_FILENAME, RunStore

LANGUAGES = ["en", "zh", "de"]
ACCEPT_ALL = "[[replies:Yes.]]"


def write_pipeline(folder: Path, servers: list[Loopback], args: argparse.Namespace) -> Path:
    scenes = [f"Scene {i}: a trip is planned. {ACCEPT_ALL}" for i in range(args.contexts)]
    (folder / "scenes.txt").write_text("\n".join(scenes), encoding="utf-8")
    users, bots, judges = servers

    def model(server: Loopback, name: str) -> dict[str, Any]:
        return {"spec": server.spec(name), "max_concurrency": args.concurrency}

    stages = [
        {
            "stage": "simulate",
            "languages": LANGUAGES,
            "seeds": {"contexts": args.contexts, "scenes": "scenes.txt"},
            "user": {"models": [model(users, "user")], "form": "chat"},
            "validator": {"model": model(users, "validator"), "form": "transcript"},
            "chatbots": {"models": [model(bots, "bot-a"), model(bots, "bot-b")]},
            "max_utterances": 6,
            "concurrency": args.concurrency,
            "filter": {"rules": False},
        },
        {
            "stage": "judge",
            "protocol": "issues",
            "judges": [model(judges, "judge")],
            "settings": {"max_reasks": 0},
        },
    ]
    path = folder / "pipeline.yaml"
    path.write_text(yaml.safe_dump({"stages": stages}), encoding="utf-8")
    return path


def run(path: Path, run_dir: Path, executor: str, shards: int | None = None) -> PipelineResult:
    runner = create_executor(executor, ExecutorOptions(shards=shards))
    try:
        report = run_pipeline(load_pipeline(path), run_dir, executor=runner)
    finally:
        runner.close()
    assert not report.failed, report
    return report


def calls(servers: list[Loopback]) -> int:
    return sum(int(server.stats()["requests"]) for server in servers)


def distinct_calls(run_dir: Path) -> int:
    with RunStore.open(run_dir, create=False) as store:
        return store.cached_call_count()


def contents(run_dir: Path) -> dict[str, Any]:
    """Dialogues (their turns' texts) and judgments (their results) by id."""
    with RunStore.open(run_dir, create=False) as store:
        dialogues = {d.id: [t.text for t in d.turns] for d in store.records(Dialogue)}
        judgments = {j.id: (j.parse_status, j.result) for j in store.records(Judgment)}
    return {"dialogues": dialogues, "judgments": judgments}


def kill_a_simulate_worker(run_dir: Path, stop: threading.Event) -> int | None:
    """SIGKILL the first shard process seen simulating with some dialogues stored."""
    while not stop.is_set():
        for store_file in run_dir.glob(f"shards/*/*/{STORE_FILENAME}"):
            try:
                with sqlite3.connect(store_file) as db:
                    rows = db.execute("SELECT record FROM runs WHERE status = 'running'")
                    running = [Invocation.model_validate_json(r) for (r,) in rows.fetchall()]
                    stored = db.execute("SELECT COUNT(*) FROM dialogues").fetchone()[0]
            except sqlite3.OperationalError:
                continue
            for shard_run in running:
                if shard_run.command == "simulate" and stored >= 2 and shard_run.pid:
                    os.kill(shard_run.pid, signal.SIGKILL)
                    return shard_run.pid
        time.sleep(0.02)
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--contexts", type=int, default=8, help="per language")
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--failure-rate", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    servers = [start_loopback(args.latency, failure_rate=args.failure_rate) for _ in range(3)]
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            path = write_pipeline(folder, servers, args)
            started = time.perf_counter()
            ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
            ray_start = time.perf_counter() - started
            figures = []
            for name, executor, shards in (("one process", "local", None), ("Ray, 2", "ray", 2)):
                before = calls(servers)
                report = run(path, folder / executor, executor, shards)
                processes = shards or 1
                made = calls(servers) - before
                ideal = args.concurrency * processes / args.latency
                distinct = distinct_calls(folder / executor)
                figures.append((name, made, distinct, report.seconds, made / report.seconds, ideal))

            stop = threading.Event()
            killed: list[int | None] = []
            killer = threading.Thread(
                target=lambda: killed.append(kill_a_simulate_worker(folder / "killed", stop))
            )
            killer.start()
            before = calls(servers)
            report = run(path, folder / "killed", "ray", 2)
            stop.set()
            killer.join()
            made_killed = calls(servers) - before
            same = contents(folder / "killed") == contents(folder / "local")
            clean = contents(folder / "local")
            ray.shutdown()
    finally:
        for server in servers:
            server.stop()
    dialogues, judgments = len(clean["dialogues"]), len(clean["judgments"])
    print(
        f"L = {args.latency * 1000:.0f} ms, {args.failure_rate:.0%} of calls fail (503), "
        f"C = {args.concurrency} per endpoint per process, 3 endpoints; "
        f"{dialogues} dialogues ({len(LANGUAGES)} languages x {args.contexts} contexts x 2 "
        f"chatbots), {judgments} judgments"
    )
    print(f"Ray start-up (local cluster, 2 CPUs)   {ray_start:7.2f} s  (not in the times below)")
    header = ("executor", "calls", "distinct", "wall s", "calls/s", "ideal/s", "ratio")
    print(f"{header[0]:<14}" + "".join(f"{h:>9}" for h in header[1:]))
    for name, made, distinct, wall, rate, ideal in figures:
        print(
            f"{name:<14}{made:>9}{distinct:>9}{wall:>9.2f}{rate:>9.1f}{ideal:>9.0f}"
            f"{rate / ideal:>9.2f}"
        )
    local_wall, ray_wall = figures[0][3], figures[1][3]
    print(f"Ray (2 workers) speed-up over one process: {local_wall / ray_wall:.2f}x")
    print(
        f"killed run: worker {killed[0]} SIGKILLed mid-simulate, {made_killed} calls "
        f"({made_killed - figures[1][1]:+d} vs. the clean Ray run), {report.seconds:.2f} s; "
        f"merged store equals the clean run's: {same}"
    )


if __name__ == "__main__":
    main()
