"""Progress of long work on stderr: a bar on a terminal; where stderr is a log file or a pipe, a
plain line every `DIALBENCH_PROGRESS_EVERY_S` seconds (default 30) and one at the end, since rich
draws a bar there only once, when the work is done. The model calls' columns: done/total, rate,
ETA and money spent so far."""

from __future__ import annotations

import os
import threading

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

EVERY_S_VARIABLE = "DIALBENCH_PROGRESS_EVERY_S"
DEFAULT_EVERY_S = 30.0


class _RateColumn(ProgressColumn):
    def render(self, task: Task) -> Text:
        return Text(f"{task.speed:.1f}/s" if task.speed else "-/s")


class LoggedProgress(Progress):
    """For a stderr that is no terminal: each task's columns as one plain line (the bar left
    out) every `every_s` seconds, from a thread of its own, so a log shows a judge that is
    alive between its calls too; and a last line when the work ends."""

    def __init__(self, *columns: ProgressColumn, console: Console, every_s: float) -> None:
        super().__init__(*columns, console=console, auto_refresh=False)
        self.every_s = every_s
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._every, name="progress", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._thread.is_alive():
            self._thread.join()
        self.write_lines()

    def _every(self) -> None:
        while not self._stopping.wait(self.every_s):
            self.write_lines()

    def write_lines(self) -> None:
        for task in self.tasks:
            parts = (
                column(task)
                for column in self.columns
                if isinstance(column, ProgressColumn) and not isinstance(column, BarColumn)
            )
            line = " ".join(part.plain for part in parts if isinstance(part, Text))
            self.console.print(line, highlight=False, markup=False, soft_wrap=True)


def every_s() -> float:
    """Seconds between two progress lines in a log; a bad value is the default."""
    try:
        seconds = float(os.environ.get(EVERY_S_VARIABLE, DEFAULT_EVERY_S))
    except ValueError:
        return DEFAULT_EVERY_S
    return seconds if seconds > 0 else DEFAULT_EVERY_S


def progress_display(*columns: ProgressColumn, quiet: bool) -> Progress:
    """On stderr: a bar on a terminal, plain lines in a log, nothing (a no-op) when `quiet`."""
    console = Console(stderr=True)
    if quiet or console.is_terminal:
        return Progress(*columns, console=console, disable=quiet)
    return LoggedProgress(*columns, console=console, every_s=every_s())


def call_progress(*, quiet: bool) -> Progress:
    """Model calls done of a batch; tasks carry `spend`."""
    return progress_display(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        _RateColumn(),
        TimeRemainingColumn(),
        TextColumn("${task.fields[spend]:.4f}"),
        quiet=quiet,
    )
