"""The simulation's progress bar: dialogues done, ETA and the live validator acceptance rate."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


class SimulationProgress:
    """On stderr unless `quiet`."""

    def __init__(self, *, quiet: bool) -> None:
        self._progress = (
            None
            if quiet
            else Progress(
                TextColumn("dialogues"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                TextColumn("accepted {task.fields[acceptance]}"),
                console=Console(stderr=True),
            )
        )
        self._task = TaskID(0)

    def start(self, total: int) -> None:
        if self._progress is not None:
            self._task = self._progress.add_task("simulate", total=total, acceptance="-")

    def advance(self, acceptance_rate: float | None) -> None:
        if self._progress is not None:
            shown = "-" if acceptance_rate is None else f"{acceptance_rate:.0%}"
            self._progress.update(self._task, advance=1, acceptance=shown)

    def __enter__(self) -> SimulationProgress:
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
