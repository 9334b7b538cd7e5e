"""`dialbench batch status|wait`: the provider batches a stage submitted with `--batch`."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from dialbench.cli.app import app
from dialbench.cli.options import DEFAULT_RUN, RunDir
from dialbench.errors import DialbenchError
from dialbench.llm.batch import (
    DEFAULT_POLL_INTERVAL_S,
    BatchRecord,
    load_batches,
    poll_all,
    unanswered,
    wait_for_batches,
)
from dialbench.store import RunStore

console = Console()
batch_app = typer.Typer(
    name="batch",
    help="Provider batches submitted by `dialbench judge --batch`.",
    no_args_is_help=True,
)
app.add_typer(batch_app)


def _print(records: list[BatchRecord]) -> None:
    if not records:
        console.print("no batches", highlight=False)
    for record in records:
        state = "merged" if record.done and record.merged else record.status
        line = (
            f"{record.id} {record.spec}: {state}, {len(record.requests)} request(s), "
            f"{record.merged} merged, {record.failed} unanswered"
        )
        if record.first_error:
            line += f" (first: {record.first_error})"
        console.print(line, highlight=False, markup=False, soft_wrap=True)


def _finish(run: Path, pending_before: set[str], records: list[BatchRecord]) -> None:
    """An error when a batch that was pending left requests unanswered."""
    finished_now = [record for record in records if record.id in pending_before and record.done]
    if (reason := unanswered(finished_now)) is not None:
        raise DialbenchError(reason)
    if finished_now:
        console.print(
            f"merged into the call cache: re-run the stage on {run} to store its judgments",
            highlight=False,
            markup=False,
        )


def _pending(run: Path) -> set[str]:
    """The batches still pending; an error for a folder that is no run (a typo in RUN found no
    batch and succeeded)."""
    RunStore.open(run, create=False).close()
    return {record.id for record in load_batches(run) if record.pending}


@batch_app.command()
def status(run: RunDir = DEFAULT_RUN) -> None:
    """Poll each pending batch once; merge the finished ones into the call cache."""
    pending = _pending(run)
    records = asyncio.run(poll_all(run))
    _print(records)
    _finish(run, pending, records)


@batch_app.command()
def wait(
    run: RunDir = DEFAULT_RUN,
    interval: Annotated[
        float, typer.Option(min=0.1, help="Seconds between polls.")
    ] = DEFAULT_POLL_INTERVAL_S,
    timeout: Annotated[
        float | None, typer.Option(min=1.0, help="Give up after this many seconds.")
    ] = None,
) -> None:
    """Poll until every batch is finished, merging each; killed, it resumes the same batches."""
    pending = _pending(run)
    records = wait_for_batches(run, interval_s=interval, timeout_s=timeout)
    _print(records)
    _finish(run, pending, records)
