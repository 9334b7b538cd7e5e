"""`dialbench run PIPELINE.yaml`: every stage of a study from one file, resumable."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from dialbench.cli.app import app
from dialbench.cli.failures import StrictOption, close_with_failures
from dialbench.cli.terminal_tables import figure, table
from dialbench.errors import DialbenchError
from dialbench.registry import Registry
from dialbench.store import RunStore
from dialbench.store_contents import stored_failures

if TYPE_CHECKING:
    from dialbench.pipeline.execute import PipelineResult, StageOutcome
    from dialbench.pipeline.plan import PipelinePlan
    from dialbench.pipeline.stage import StageResult

console = Console()
DEFAULT_PIPELINE_RUN = Path("runs/pipeline")
MARKS = {"ran": "done", "up to date": "up to date", "failed": "FAILED", "not run": "not run"}
WITH_FAILURES = "done with failures"
RETRY = (
    "run the same command again: it retries exactly what failed (--accept-failures takes "
    "the stages as done)"
)
# What prints a stage's own figures under its line, by stage kind: given the stage's result.
STAGE_PRINTERS: Registry[Callable[[Any], None]] = Registry(
    "stage printer",
    {
        "judge": "dialbench.cli.judge:print_judge_summary",
        "arena": "dialbench.cli.judge:print_judge_summary",
        "metaeval": "dialbench.cli.metaeval:print_metaeval_output",
        "diqad": "dialbench.cli.metric:print_diqad_training",
    },
    group="stage_printers",
)


def _show(report: StageOutcome, output: StageResult | None) -> None:
    """A stage as it settles: a line (what failed beside it), then its own figures where it
    has a printer."""
    timing = f" ({report.seconds:.1f} s)" if report.status == "ran" else ""
    mark = WITH_FAILURES if report.failed else MARKS.get(report.status, report.status)
    line = f"[{report.name}] {mark}{timing}: {report.summary}"
    console.print(line.rstrip(": "), markup=False, highlight=False, soft_wrap=True)
    if report.failed:
        console.print(f"[{report.name}] left: {report.failed}", markup=False, soft_wrap=True)
    result = output.result if output is not None else None
    if result is not None and report.stage in STAGE_PRINTERS:
        STAGE_PRINTERS.load(report.stage)(result)


def _print_plan(plan: PipelinePlan) -> None:
    rows = []
    for stage in plan.stages:
        if stage.up_to_date:
            rows.append((stage.name, "up to date", "", "0", "0", "0", "-", "0"))
        status = "to retry" if stage.retries else "to run"
        for model in stage.models:
            cost = model.cost_usd
            rows.append(
                (
                    stage.name,
                    status,
                    model.spec,
                    f"{model.calls.calls:,}",
                    f"{model.calls.prompt_tokens:,}",
                    f"{model.calls.completion_tokens:,}",
                    "unknown" if cost is None else f"${cost:,.2f}",
                    _duration(model.wall_s),
                )
            )
        if not stage.up_to_date and not stage.models:
            rows.append((stage.name, status, "(no model calls)", "0", "0", "0", "-", "-"))
    columns = ("stage", "status", "model", "calls", "prompt tok", "completion tok", "cost", "wall")
    console.print(table("Plan (estimates)", columns, rows, text={"stage", "status", "model"}))
    for stage in plan.stages:
        if stage.retries:
            line = f"[{stage.name}] done with failures before ({stage.retries}): runs again for "
            console.print(line + "what failed", markup=False, highlight=False, soft_wrap=True)
        if stage.note and not stage.up_to_date:
            line = f"[{stage.name}] {stage.note}"
            console.print(line, markup=False, highlight=False, soft_wrap=True)
    cost = plan.cost_usd
    console.print(
        f"total: {plan.calls:,} model calls, cost "
        f"{'unknown for some models' if cost is None else f'${figure(cost, 2)}'}, "
        f"wall time about {_duration(plan.wall_s)} on the critical path",
        markup=False,
        highlight=False,
    )
    _print_power(plan)
    for problem in plan.problems:
        console.print(f"✗ {problem.line()}", markup=False, highlight=False, soft_wrap=True)
    if plan.problems:
        console.print(
            f"{len(plan.problems)} model(s) cannot answer from here: `dialbench run` would stop "
            "before the first stage",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )


def _print_power(plan: PipelinePlan) -> None:
    """Per stage that grows chatbot dialogues from seeds: the smallest difference in an issue
    rate between two of its chatbots that its seeds per language detect."""
    rows = [
        (
            stage.name,
            ", ".join(power.languages),
            f"{power.seeds:,}",
            str(power.dialogues_per_seed),
            f"{power.sd:.2f}",
            "-"
            if power.difference is None
            else "over 100 points"
            if power.difference >= 1
            else f"{100 * power.difference:.1f} points",
        )
        for stage in plan.stages
        for power in stage.power
    ]
    if not rows:
        return
    columns = ("stage", "languages", "seeds", "dialogues/seed", "sd", "detects")
    title = "Seeds: the difference in an issue rate detected 80% of the time"
    console.print(table(title, columns, rows, text={"stage", "languages"}, compact=True))
    basis = plan.power_basis
    spread = (
        f"pilot {basis.pilot}'s chatbots, its widest issue"
        if basis.pilot is not None
        else f"base rate {basis.base_rate:.0%}, chatbots independent on a seed (conservative)"
    )
    console.print(
        f"(paired t over seeds, two-sided, α = 0.05; sd of a seed's difference between two "
        f"chatbots from {spread}; docs/statistics.md)",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _stopping() -> None:
    console.print(
        "stopping: the calls in flight finish and are kept, no new one starts "
        "(Ctrl-C again to quit at once)",
        markup=False,
    )


def _end(report: PipelineResult, run_dir: Path, strict: bool) -> None:
    """Exit 130 when stopped; a failed stage is an error on stderr (exit 1), where a script or
    a log of errors finds it, besides its line among the stages. Then the failed dialogues and
    judgments the run holds, by reason (with `strict`, exit 1 on any)."""
    if report.stopped:
        raise typer.Exit(130)
    failed = [stage for stage in report.stages if stage.status == "failed"]
    if failed:
        more = f" ({len(failed) - 1} more stage(s) failed)" if len(failed) > 1 else ""
        raise DialbenchError(f"stage {failed[0].name} failed: {failed[0].summary}{more}")
    with RunStore.open(run_dir, create=False) as store:
        counted = stored_failures(store)
    close_with_failures(
        [(f"{run_dir} holds: ", failures, of) for failures, of in counted],
        strict=strict,
        retry=f"each record's error says why; {RETRY}",
    )


@app.command(name="run")
def run_command(
    pipeline: Annotated[Path, typer.Argument(help="Pipeline file (YAML): run:, stages:.")],
    run: Annotated[
        Path | None, typer.Option("--run", "-r", help="Run directory; default the file's run:.")
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run", help="Print calls, tokens, cost, time and seeds' power; run nothing."
        ),
    ] = False,
    base_rate: Annotated[
        float | None,
        typer.Option(
            min=0.001,
            max=0.999,
            help="Dry run: the issue rate the power of the seeds is planned at (default 0.2).",
        ),
    ] = None,
    pilot: Annotated[
        Path | None,
        typer.Option(
            help="Dry run: plan the power from this run's spread between chatbots instead."
        ),
    ] = None,
    force: Annotated[
        list[str], typer.Option(help="Run this stage again even if it is up to date; repeatable.")
    ] = [],  # noqa: B006  (typer reads defaults, never mutates them)
    executor: Annotated[
        str,
        typer.Option(
            help="Where stages run: local (this process) or ray (sharded; the extra ray)."
        ),
    ] = "local",
    address: Annotated[
        str | None,
        typer.Option(help="Ray cluster to join; default: start a local one on this machine."),
    ] = None,
    shards: Annotated[
        int | None,
        typer.Option(min=1, help="Ray: parts of each stage's work; default the cluster's CPUs."),
    ] = None,
    accept_failures: Annotated[
        bool,
        typer.Option(
            "--accept-failures",
            help="Take a stage whose work partly failed as done: a run again skips it.",
        ),
    ] = False,
    strict: StrictOption = False,
) -> None:
    """Run a pipeline's stages (import, simulate, selfchat, judge, arena, metaeval, report, ...):
    each as soon as the stages it reads from are done, stages that do not depend on each other
    side by side. A stage already done with the same settings and inputs is skipped; change one
    stage and it reruns with what depends on it. Ctrl-C stops cleanly; run again to resume.
    With --executor ray, stages that work per dialogue run as shards on Ray tasks."""
    # Every stage's modules (the statistics stack among them) load only when this command runs.
    from dialbench.pipeline.config import load_pipeline
    from dialbench.pipeline.execute import run_pipeline
    from dialbench.pipeline.executors import ExecutorOptions, create_executor
    from dialbench.pipeline.plan import BASE_RATE, PowerBasis, plan_pipeline

    if not dry_run and (base_rate is not None or pilot is not None):
        raise DialbenchError("--base-rate and --pilot plan the seeds of a --dry-run")
    config = load_pipeline(pipeline)
    run_dir = run or config.run or DEFAULT_PIPELINE_RUN
    if dry_run:
        basis = PowerBasis(base_rate=base_rate or BASE_RATE, pilot=pilot)
        plan = plan_pipeline(config, run_dir, basis, accept_failures=accept_failures)
        _print_plan(plan)
        return
    runner = create_executor(executor, ExecutorOptions(address=address, shards=shards))
    try:
        report = run_pipeline(
            config,
            run_dir,
            force=frozenset(force),
            listener=_show,
            on_stopping=_stopping,
            executor=runner,
            accept_failures=accept_failures,
        )
    except KeyboardInterrupt:
        # What the stages stored is committed; calls in flight are lost and made again.
        console.print("quit without waiting: run the same command again to resume", markup=False)
        os._exit(130)
    finally:
        runner.close()
    marks = Counter(
        WITH_FAILURES if stage.failed else MARKS.get(stage.status, stage.status)
        for stage in report.stages
    )
    console.print(
        f"pipeline {pipeline} -> {run_dir}: {report.seconds:.1f} s; "
        + ", ".join(f"{n} {mark}" for mark, n in marks.items()),
        markup=False,
        highlight=False,
    )
    if report.work_left:
        left = f"{len(report.work_left)} stage(s) done with failures: {RETRY}"
        console.print(left, markup=False, highlight=False, soft_wrap=True)
    if report.stopped:
        console.print("stopped: run the same command again to resume", markup=False)
    _end(report, run_dir, strict)
