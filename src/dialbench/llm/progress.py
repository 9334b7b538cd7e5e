"""A progress bar for batches of model calls: done/total, rate, ETA and money spent so far."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)
from rich.text import Text


class _RateColumn(ProgressColumn):
    def render(self, task: Task) -> Text:
        return Text(f"{task.speed:.1f}/s" if task.speed else "-/s")


class CallProgress:
    """Shown on stderr unless `quiet`; a no-op in quiet mode so scripts stay clean."""

    def __init__(self, description: str, total: int, *, quiet: bool) -> None:
        self._progress: Progress | None = None
        self._task = TaskID(0)
        if not quiet:
            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                _RateColumn(),
                TimeRemainingColumn(),
                TextColumn("${task.fields[spend]:.4f}"),
                console=Console(stderr=True),
                transient=False,
            )
            self._task = self._progress.add_task(description, total=total, spend=0.0)

    def advance(self, spend_usd: float) -> None:
        if self._progress is not None:
            self._progress.update(self._task, advance=1, spend=spend_usd)

    def __enter__(self) -> CallProgress:
        if self._progress is not None:
            self._progress.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._progress is not None:
            self._progress.stop()
