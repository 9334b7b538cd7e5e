"""Terminal tables in one style: text columns left-aligned, figures right-aligned."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from rich.table import Table


def figure(value: float | None, digits: int = 1) -> str:
    """A figure for a table cell; an undefined one (None) shows as "-"."""
    return "-" if value is None else f"{value:,.{digits}f}"


def table(
    title: str, columns: Sequence[str], rows: Iterable[Sequence[str]], *, text: Collection[str] = ()
) -> Table:
    """`text` names the left-aligned columns; every other column holds figures."""
    result = Table(title=title, title_justify="left")
    for column in columns:
        result.add_column(column, justify="left" if column in text else "right")
    for row in rows:
        result.add_row(*row)
    return result
