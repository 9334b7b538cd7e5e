"""Running a pipeline: each stage as soon as the stages it waits for are done, skipping those
that finished before with the same identity (settled then: `graph.settled`).

A stage whose work partly failed (dialogues ended in error, unscored judgments, judgments
waiting in a batch) is done with failures: recorded, so the plan and the closing line say so,
but not done, so the next run runs it again, and its commands retry exactly what failed. A stage
that read a stage's output while that stage had failures is done with failures too: the retried
work reaches it on the next run. `accept_failures` takes both as done.

Stages are scheduled from worker threads, each with its own store connection and event loop;
the store is SQLite in WAL mode, so they write side by side. Where a stage runs is its executor's
business (`executors/`): here in this process by default, or sharded on Ray. Ctrl-C lets the
calls in flight finish (they are cached) and starts no other: the next run picks up from there
without paying twice.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Literal

from pydantic import Field

from dialbench.errors import DialbenchError
from dialbench.llm.preflight import (
    Checked,
    ModelProblem,
    ModelsUnavailable,
    model_problems,
    models_in,
)
from dialbench.pipeline.config import PipelineConfig
from dialbench.pipeline.executors import Executor
from dialbench.pipeline.executors.local import LocalExecutor
from dialbench.pipeline.graph import Node, build_graph, settled
from dialbench.pipeline.stage import StageResult
from dialbench.schema import Record, StageRecord
from dialbench.store import STORE_FILENAME, RunStore

Status = Literal["ran", "up to date", "failed", "not run", "stopped"]


class StageOutcome(Record):
    name: str
    stage: str
    status: Status
    seconds: float = 0.0
    summary: str = ""
    failed: str | None = Field(
        default=None, description="ran, with work left that a run again retries"
    )


class PipelineResult(Record):
    run_dir: Path
    stages: list[StageOutcome] = Field(default_factory=list)
    seconds: float = 0.0
    stopped: bool = False

    @property
    def failed(self) -> bool:
        return any(stage.status == "failed" for stage in self.stages)

    @property
    def work_left(self) -> list[StageOutcome]:
        """The stages that ran with work left."""
        return [stage for stage in self.stages if stage.failed]


Listener = Callable[[StageOutcome, StageResult | None], None]


def finished_stages(run_dir: Path) -> dict[str, StageRecord]:
    """The stages recorded in a run, by identity: done, or done with failures."""
    if not (run_dir / STORE_FILENAME).exists():
        return {}
    with RunStore.open(run_dir, create=False) as store:
        return {record.id: record for record in store.records(StageRecord)}


def done_identities(recorded: dict[str, StageRecord], *, accept_failures: bool) -> set[str]:
    """Of the stages recorded, the identities of those done: without failed work, or with it
    where accepted."""
    return {key for key, record in recorded.items() if accept_failures or record.failed is None}


def will_run(node: Node, done: set[str], force: frozenset[str] = frozenset()) -> bool:
    return node.identity not in done or node.name in force


def stage_model_problems(node: Node, checked: Checked) -> list[ModelProblem]:
    """Why the models of a stage cannot answer: found before any stage starts, each model once
    for all stages (`checked`)."""
    return model_problems(models_in(node.stage), f"stage {node.name}", checked)


def _record(
    run_dir: Path, node: Node, output: StageResult, seconds: float, failed: str | None
) -> None:
    record = StageRecord(
        id=node.identity,
        name=node.name,
        stage=node.stage.stage,
        summary=output.summary,
        failed=failed,
    )
    with (
        RunStore.open(run_dir) as store,
        store.invocation("pipeline-stage", {"name": node.name}) as run,
    ):
        store.add([record.model_copy(update={"seconds": seconds})], run, on_conflict="replace")


def _execute(
    executor: Executor, run_dir: Path, node: Node, read_failed: list[str]
) -> tuple[StageResult, float, str | None]:
    """Run a stage and record it, with what of its work failed; `read_failed`: the stages it
    read from that had failed work."""
    started = time.perf_counter()
    output = executor.run(node, run_dir)
    seconds = time.perf_counter() - started
    upstream = f"read {', '.join(read_failed)}, which had failed work" if read_failed else None
    failed = "; ".join(reason for reason in (output.failed, upstream) if reason) or None
    _record(run_dir, node, output, seconds, failed)
    return output, seconds, failed


def run_pipeline(
    config: PipelineConfig,
    run_dir: Path,
    *,
    force: frozenset[str] = frozenset(),
    listener: Listener | None = None,
    on_stopping: Callable[[], None] | None = None,
    executor: Executor | None = None,
    accept_failures: bool = False,
) -> PipelineResult:
    """Run every stage not already done; `force` names stages to run again all the same.
    `listener` hears of each stage as it settles, `on_stopping` of a first Ctrl-C; a second
    one is raised as KeyboardInterrupt with the stages' threads still running. `executor`:
    where stages run (default: here, `LocalExecutor`). `accept_failures`: a stage done with
    failures counts as done."""
    executor = executor or LocalExecutor()
    nodes = build_graph(list(config.stages), run_dir)
    unknown = force - {node.name for node in nodes}
    if unknown:
        known = ", ".join(node.name for node in nodes)
        raise DialbenchError(f"--force {', '.join(sorted(unknown))}: no such stage ({known})")
    done_before = done_identities(finished_stages(run_dir), accept_failures=accept_failures)
    checked: Checked = {}
    problems = [
        problem
        for node in nodes
        if will_run(node, done_before, force)
        for problem in stage_model_problems(node, checked)
    ]
    if problems:
        raise ModelsUnavailable(problems)
    with RunStore.open(run_dir):  # created and migrated here, not by stages racing to do it
        pass
    started = time.perf_counter()
    reports: dict[str, StageOutcome] = {}
    identities: dict[str, str] = {}

    def settle(
        node: Node,
        status: Status,
        summary: str = "",
        output: StageResult | None = None,
        seconds: float = 0.0,
        failed: str | None = None,
    ) -> None:
        report = StageOutcome(
            name=node.name,
            stage=node.stage.stage,
            status=status,
            seconds=seconds,
            summary=summary,
            failed=failed,
        )
        reports[node.name] = report
        if listener is not None:
            listener(report, output)

    running: dict[Future[tuple[StageResult, float, str | None]], Node] = {}
    stopped = False
    pool = ThreadPoolExecutor(max_workers=len(nodes), thread_name_prefix="stage")
    try:
        while True:
            for node in nodes:
                if node.name in reports or node.name in identities or stopped:
                    continue
                waiting = [reports.get(name) for name in node.after]
                if any(r is not None and r.status in ("failed", "not run") for r in waiting):
                    settle(node, "not run", "a stage it waits for did not finish")
                elif all(r is not None for r in waiting):
                    node = settled(node, identities, run_dir)
                    identities[node.name] = node.identity
                    if not will_run(node, done_before, force):
                        settle(node, "up to date")
                    else:
                        read_failed = [name for name in node.after if reports[name].failed]
                        work = pool.submit(_execute, executor, run_dir, node, read_failed)
                        running[work] = node
            if not running:
                break
            try:
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
            except KeyboardInterrupt:
                if stopped:  # a second Ctrl-C: the caller quits without waiting
                    raise
                stopped = True
                executor.stop()
                if on_stopping is not None:
                    on_stopping()
                continue
            for future in finished:
                node = running.pop(future)
                try:
                    output, seconds, failed = future.result()
                except BaseException as error:  # a stage's failure ends that branch, not the run
                    status: Status = "stopped" if stopped else "failed"
                    settle(node, status, _reason(error))
                else:
                    settle(node, "ran", output.summary, output, seconds, failed)
    finally:
        pool.shutdown(wait=False)
    for node in nodes:
        if node.name not in reports:
            settle(node, "not run", "stopped before it started")
    order = [reports[node.name] for node in nodes]
    return PipelineResult(
        run_dir=run_dir, stages=order, seconds=time.perf_counter() - started, stopped=stopped
    )


def _reason(error: BaseException) -> str:
    if isinstance(error, DialbenchError):
        return str(error)
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
