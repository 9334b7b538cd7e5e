"""Terminal tables in one style: text columns left-aligned, figures right-aligned.

Every title and cell is data (names from users' files and model specs), so each is escaped:
rich would otherwise read `[/]` as markup and fail, or `[link=...]` as a hidden hyperlink.

A table too wide for its screen would have rich squeeze every column, down to nothing for the
names that say what a row is; a `KeyedTable` keeps those, and the figure the row is for, and
leaves out other columns instead, saying which. Piped into a file or a CI log, where no screen
cuts the lines, a table is printed as wide as it is.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.measure import Measurement
from rich.table import Table

UNBOUNDED = 100_000


def figure(value: float | None, digits: int = 1) -> str:
    """A figure for a table cell; an undefined one (None) shows as "-"."""
    return "-" if value is None else f"{value:,.{digits}f}"


def table(
    title: str,
    columns: Sequence[str],
    rows: Iterable[Sequence[str]],
    *,
    text: Collection[str] = (),
    compact: bool = False,
) -> Table:
    """`text` names the left-aligned columns; every other column holds figures. A compact table
    draws no vertical lines, which leaves wide tables room at 80 columns."""
    result = (
        Table(
            title=escape(title),
            title_justify="left",
            box=box.SIMPLE_HEAD,
            show_edge=False,
            collapse_padding=True,
        )
        if compact
        else Table(title=escape(title), title_justify="left")
    )
    for column in columns:
        if column in text:  # names wrap rather than lose their end at 80 columns
            result.add_column(escape(column), justify="left", overflow="fold")
        else:
            result.add_column(escape(column), justify="right", no_wrap=True)
    for row in rows:
        result.add_row(*map(escape, row))
    return result


def screen_width(console: Console) -> int | None:
    """The width a table must fit: a terminal's, or COLUMNS where it is set; None for a pipe or
    a file, which no screen cuts (rich would take 80 columns there)."""
    return console.width if console.is_terminal or os.environ.get("COLUMNS") else None


@dataclass(frozen=True)
class KeyedTable:
    """A table that, too wide for its screen, leaves out columns until it fits unsqueezed
    (those in `drop_first`, in that order, then the others from the right) and names them.
    `kept` are never left out: the columns that say what a row is (protocol, judge,
    dimension, language) and the figure it is for; rich wraps them if they alone are too wide."""

    title: str
    columns: Sequence[str]
    rows: Sequence[Sequence[str]]
    kept: Collection[str]
    text: Collection[str] = ()
    compact: bool = False
    drop_first: Sequence[str] = ()

    def _without(self, left_out: Collection[str]) -> Table:
        shown = [i for i, column in enumerate(self.columns) if column not in left_out]
        return table(
            self.title,
            [self.columns[i] for i in shown],
            ([row[i] for i in shown] for row in self.rows),
            text=self.text,
            compact=self.compact,
        )

    def print(self, console: Console, width: int | None) -> None:
        """At most `width` columns wide; None: as wide as the table is (a pipe, a file)."""
        rest = [c for c in reversed(self.columns) if c not in (*self.kept, *self.drop_first)]
        droppable = [*(c for c in self.drop_first if c in self.columns), *rest]
        left_out: list[str] = []
        while True:
            built = self._without(left_out)
            needed = Measurement.get(console, console.options.update_width(UNBOUNDED), built)
            if width is None or needed.maximum <= width or len(left_out) == len(droppable):
                break
            left_out.append(droppable[len(left_out)])
        if width is None:  # every column, on lines as long as they need
            console = Console(file=console.file, width=needed.maximum, color_system=None)
        console.print(built)
        if left_out:
            console.print(
                f"left out to fit {width} columns: {', '.join(left_out)} (a wider screen or "
                "COLUMNS shows them)",
                markup=False,
                highlight=False,
            )
