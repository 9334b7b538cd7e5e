"""Terminal tables in one style: text columns left-aligned, figures right-aligned.

Every title and cell is data (names from users' files and model specs), so each is escaped:
rich would otherwise read `[/]` as markup and fail, or `[link=...]` as a hidden hyperlink.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from rich import box
from rich.markup import escape
from rich.table import Table


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
