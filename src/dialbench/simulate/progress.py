"""The simulation's progress bar: dialogues done, ETA and the live validator acceptance rate."""

from __future__ import annotations

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from dialbench.llm.progress import progress_display


def progress_bar(*, quiet: bool) -> Progress:
    """On stderr (plain lines in a log); a no-op when `quiet`. Tasks carry `acceptance`."""
    return progress_display(
        TextColumn("dialogues"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        TextColumn("accepted {task.fields[acceptance]}"),
        quiet=quiet,
    )
