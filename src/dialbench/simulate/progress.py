"""The simulation's progress bar: dialogues done, ETA and the live validator acceptance rate."""

from __future__ import annotations

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


def progress_bar(*, quiet: bool) -> Progress:
    """On stderr; disabled (a no-op) when `quiet`. Tasks carry an `acceptance` field."""
    return Progress(
        TextColumn("dialogues"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        TextColumn("accepted {task.fields[acceptance]}"),
        console=Console(stderr=True),
        disable=quiet,
    )
