"""A progress bar for batches of model calls: done/total, rate, ETA and money spent so far."""

from __future__ import annotations

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeRemainingColumn,
)
from rich.text import Text


class _RateColumn(ProgressColumn):
    def render(self, task: Task) -> Text:
        return Text(f"{task.speed:.1f}/s" if task.speed else "-/s")


def call_progress(*, quiet: bool) -> Progress:
    """On stderr; disabled (a no-op) when `quiet`, so scripts stay clean. Tasks carry `spend`."""
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        _RateColumn(),
        TimeRemainingColumn(),
        TextColumn("${task.fields[spend]:.4f}"),
        console=Console(stderr=True),
        disable=quiet,
    )
