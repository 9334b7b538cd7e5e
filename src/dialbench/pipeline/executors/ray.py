"""Sharded execution on Ray (`dialbench run --executor ray`, extra `dialbench[ray]`).

A stage whose work splits by dialogue (`Stage.sharded`) runs as one Ray task per shard. Each
task works in its own store, RUN/shards/<stage identity>/<k>-of-<n>/, seeded with the records the
stage reads, and keeps its call cache there: a task whose worker dies is retried by Ray and
reopens that store, so it re-asks no call already answered and skips what it already stored.
The shard stores are then merged into the run store with its idempotent add. Whole-run stages
(arena ratings in reports, curation, meta-evaluation, imports) run once, here on the driver.

Every node must see the run directory at the same path (one machine, or a shared file system).
A local cluster (no `--address`) is for this machine alone: its node address is the loopback
one, so GCS, raylet, workers and agents listen on 127.0.0.1 rather than on every interface.
With `local:` model specs each task loads the model in its own worker process: every Ray
worker hosts its own llama.cpp engine.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

from dialbench.errors import DialbenchError

try:
    import ray
    from ray._private import ray_constants
    from ray.exceptions import RayError, RayTaskError
except ImportError as missing:
    raise DialbenchError(
        "--executor ray needs Ray, an optional extra: pip install 'dialbench[ray]'"
    ) from missing

from dialbench.llm.stopping import request_stop
from dialbench.pipeline.executors import ExecutorOptions
from dialbench.pipeline.graph import Node
from dialbench.pipeline.stage import (
    ANNOTATIONS,
    BENCHMARKS,
    DIALOGUES,
    JUDGMENTS,
    Stage,
    StageResult,
)
from dialbench.schema import Annotation, Benchmark, Dialogue, Judgment, StoredRecord
from dialbench.sharding import Shard
from dialbench.store import STORE_FILENAME, AddResult, RunStore

RETRIES = 3  # a shard task whose worker dies is run again this many times
SEED = "shard-seed"  # the run that copies a stage's input into a shard store
SEED_BATCH = 500
LOCAL_ONLY = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
"""Ray's switch between a single-machine node on the loopback address (its default on Windows
and macOS) and one reachable from other machines (its default elsewhere)."""
READ_RECORDS: dict[str, type[StoredRecord]] = {
    DIALOGUES: Dialogue,
    JUDGMENTS: Judgment,
    ANNOTATIONS: Annotation,
    BENCHMARKS: Benchmark,
}


def this_machine_only() -> None:
    """Make the node Ray starts next take the loopback address, as it does on Windows and macOS.
    Ray reads the switch from the environment when it is imported: set there for the processes
    it starts, and on the constant this process read then."""
    os.environ[LOCAL_ONLY] = "0"
    ray_constants.ENABLE_RAY_CLUSTER = False


def run_shard(stage: Stage, folder: str) -> tuple[str, str | None]:
    """The Ray task: one shard of a stage on its own store; a retry resumes from there. What
    it did, and what of its work failed."""
    done = stage.execute(Path(folder))
    return done.summary, done.failed


def seed_shard(run_dir: Path, folder: Path, reads: frozenset[str]) -> None:
    """Copy the records a stage reads from the run store into a shard's store."""
    kinds = [READ_RECORDS[kind] for kind in sorted(reads) if kind in READ_RECORDS]
    if not kinds:
        return
    with (
        RunStore.open(run_dir, create=False) as source,
        RunStore.open(folder) as shard,
        shard.invocation(SEED) as run,
    ):
        for kind in kinds:
            records = list(source.records(kind))
            for start in range(0, len(records), SEED_BATCH):
                shard.add(records[start : start + SEED_BATCH], run, on_conflict="replace")


def merge_shards(run_dir: Path, folders: list[Path]) -> AddResult:
    """What the shards' own runs did, into the run store (their seeds came from there)."""
    total = AddResult()
    with RunStore.open(run_dir) as store:
        for folder in folders:
            if not (folder / STORE_FILENAME).exists():
                continue
            with RunStore.open(folder, create=False) as shard:
                seeds = frozenset(run.id for run in shard.invocations() if run.command == SEED)
                merged = store.absorb(shard, skip_runs=seeds)
            total = AddResult(
                added=total.added + merged.added,
                unchanged=total.unchanged + merged.unchanged,
                replaced=total.replaced + merged.replaced,
            )
    return total


class RayExecutor:
    """Joins the cluster at `--address`, else starts a local one on this machine's cores."""

    def __init__(self, options: ExecutorOptions) -> None:
        self.started = not ray.is_initialized()
        if self.started:
            if not options.address:
                this_machine_only()
            ray.init(
                address=options.address or "local",
                num_cpus=None if options.address else options.shards or os.cpu_count(),
                include_dashboard=False,
                log_to_driver=False,
                logging_level=logging.WARNING,
            )
        cpus = ray.cluster_resources().get("CPU", 1)  # type: ignore[no-untyped-call]
        self.shards = options.shards or max(1, int(cpus))
        self.task = ray.remote(max_retries=RETRIES)(run_shard)
        self.lock = threading.Lock()
        self.in_flight: set[ray.ObjectRef[tuple[str, str | None]]] = set()
        self.stopping = False

    def run(self, node: Node, run_dir: Path) -> StageResult:
        shards = [Shard(index=k, count=self.shards) for k in range(self.shards)]
        parts = [part for shard in shards if (part := node.stage.sharded(shard)) is not None]
        if len(parts) < len(shards):
            return node.stage.execute(run_dir)
        folders = [run_dir / "shards" / node.identity / str(shard) for shard in shards]
        for folder in folders:
            seed_shard(run_dir, folder, node.stage.reads())
        with self.lock:
            if self.stopping:
                raise DialbenchError("stopped before it started")
            pairs = zip(parts, folders, strict=True)
            refs = [self.task.remote(part, str(folder)) for part, folder in pairs]
            self.in_flight.update(refs)
        summaries, failed, failure = [], [], None
        for shard, ref in zip(shards, refs, strict=True):
            try:
                summary, left = ray.get(ref)
                summaries.append(f"shard {shard}: {summary}")
                if left:
                    failed.append(f"shard {shard}: {left}")
            except RayTaskError as error:  # the stage's own error, as it was raised
                failure = failure or (error.cause if isinstance(error.cause, Exception) else error)
            except RayError as error:  # cancelled, or out of retries
                failure = failure or error
            finally:
                with self.lock:
                    self.in_flight.discard(ref)
        merged = merge_shards(run_dir, folders)
        if failure is not None:
            raise failure
        return StageResult(
            f"{len(shards)} shard(s) on Ray, {merged.added} new record(s) merged; "
            + "; ".join(summaries),
            failed="; ".join(failed) or None,
        )

    def stop(self) -> None:
        """Stop the driver's own stages and cancel the shard tasks; what they stored stays in
        their stores and caches, and the next run resumes from there."""
        request_stop()
        with self.lock:
            self.stopping = True
            refs = list(self.in_flight)
        for ref in refs:
            ray.cancel(ref)

    def close(self) -> None:
        if self.started:
            ray.shutdown()
