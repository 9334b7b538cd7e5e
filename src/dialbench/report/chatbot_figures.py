"""Chatbot figures in the report's tables: each figure (`figures/intervals.py`) with its 95%
interval beside it (`<column>_low`, `<column>_high` in the CSV), its number of seeds and the note
of a row with too few, and the cell a reader sees: `25% [10–40]`, `3.25 [2.90–3.60]`."""

from __future__ import annotations

from collections.abc import Collection, Mapping

import pandas as pd

from dialbench.figures.intervals import chatbot_intervals
from dialbench.report.context import ReportContext
from dialbench.report.tables import all_languages_last
from dialbench.schema import ALL_LANGUAGES

KEYS = ["judge", "chatbot", "language"]


def protocol_figures(context: ReportContext, protocol: str) -> pd.DataFrame:
    """A protocol's chatbot figures, per judge, dimension, chatbot and language (and "all"),
    with their seeds, intervals and notes."""
    return chatbot_intervals(context.observations[protocol])


def _interval_columns(columns: Collection[str]) -> list[str]:
    return [name for column in columns for name in (column, f"{column}_low", f"{column}_high")]


def figure_table(
    figures: pd.DataFrame, columns: Mapping[str, str], count: str = "items"
) -> pd.DataFrame:
    """Per judge, chatbot and language (all languages last): what was judged (`count`), the
    seeds, each figure with its interval (`columns`: table column -> the figure's dimension),
    and the note of a row whose interval is not to be trusted; a dimension without figures has
    no columns."""
    found = set(figures["dimension"])
    columns = {column: dimension for column, dimension in columns.items() if dimension in found}
    wanted = figures[figures["dimension"].isin(list(columns.values()))]
    if wanted.empty:
        return pd.DataFrame()
    rows = []
    for key, part in wanted.groupby(KEYS, sort=True):
        by_dimension = part.set_index("dimension")
        row: dict[str, object] = {
            **dict(zip(KEYS, key, strict=True)),
            count: int(part["items"].max()),
            "seeds": int(part["units"].max()),
        }
        for column, dimension in columns.items():
            if dimension in by_dimension.index:
                figure = by_dimension.loc[dimension]
                row |= {
                    column: figure["value"],
                    f"{column}_low": figure["low"],
                    f"{column}_high": figure["high"],
                }
        row["note"] = "; ".join(dict.fromkeys(note for note in part["note"] if note))
        rows.append(row)
    table = pd.DataFrame(rows, columns=[*KEYS, count, "seeds", *_interval_columns(columns), "note"])
    return all_languages_last(table)


def with_intervals(
    table: pd.DataFrame, figures: pd.DataFrame, columns: Mapping[str, str]
) -> pd.DataFrame:
    """A table with a row per judge and chatbot (languages together), each figure column's
    interval beside it, then the seeds and the note; `columns` maps a figure column to its
    dimension."""
    together = figure_table(figures[figures["language"] == ALL_LANGUAGES], columns)
    if together.empty:
        return table
    beside = together.drop(columns=["language", "items", *columns])
    joined = table.merge(beside, on=["judge", "chatbot"], how="left")
    order = [name for column in table.columns for name in _interval_columns([column])]
    return joined[[c for c in order if c in joined] + ["seeds", "note"]]


def interval_cell(value: float, low: float, high: float, *, rate: bool) -> str:
    """`25% [10–40]` for a rate, `3.25 [2.90–3.60]` for a score; the figure alone where it has
    no interval (one seed), "-" where there is no figure."""
    if pd.isna(value):
        return "-"
    if rate:
        shown = f"{value:.0%}"
        bounds = f"{100 * low:.0f}–{100 * high:.0f}"
    else:
        shown = f"{value:.2f}"
        bounds = f"{low:.2f}–{high:.2f}"
    return shown if pd.isna(low) else f"{shown} [{bounds}]"


def interval_cells(
    table: pd.DataFrame, rates: Collection[str] = (), scores: Collection[str] = ()
) -> pd.DataFrame:
    """For reading: each figure column of `rates` and `scores` as one cell with its interval,
    the `_low` and `_high` columns gone (a column without an interval is left as it is)."""
    rates = [c for c in rates if f"{c}_low" in table]
    scores = [c for c in scores if f"{c}_low" in table]
    shown = table.copy()
    for column in [*rates, *scores]:
        shown[column] = [
            interval_cell(value, low, high, rate=column in rates)
            for value, low, high in zip(
                table[column], table[f"{column}_low"], table[f"{column}_high"], strict=True
            )
        ]
    return shown.drop(columns=[f"{c}_{end}" for c in [*rates, *scores] for end in ("low", "high")])
