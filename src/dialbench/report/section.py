"""A report section: its title, the note a reader needs to interpret it, its plots (PNG in
`plots/`) and tables (CSV in `tables/`, HTML and markdown to show), and the helpers every
section is built with."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from pydantic import Field

from dialbench.plotting import file_stem
from dialbench.report import plots
from dialbench.safe_text import markdown_frame, spreadsheet_frame
from dialbench.schema import Record


class ReportTable(Record):
    title: str
    csv: str = Field(description="path relative to the report folder")
    html: str
    markdown: str


class Section(Record):
    key: str
    title: str
    note: str = ""
    plots: list[str] = Field(default_factory=list, description="paths relative to the folder")
    tables: list[ReportTable] = Field(default_factory=list)


def write_table(
    folder: Path,
    name: str,
    title: str,
    frame: pd.DataFrame,
    shown: pd.DataFrame | None = None,
    drop_prefix: str = "",
) -> ReportTable:
    """The CSV holds `frame` as computed; HTML and markdown show `shown` (default: the same,
    with `drop_prefix` dropped from column names)."""
    csv = Path("tables") / f"{name}.csv"
    spreadsheet_frame(frame).to_csv(folder / csv, index=False)
    if shown is None:
        shown = frame.rename(columns=lambda c: str(c).removeprefix(drop_prefix))
    return ReportTable(
        title=title,
        csv=csv.as_posix(),
        html=shown.to_html(index=False, na_rep="-", float_format=lambda v: f"{v:.3f}"),
        markdown=markdown_frame(shown).to_markdown(index=False, floatfmt=".3f", missingval="-"),
    )


def relative(folder: Path, paths: list[Path]) -> list[str]:
    return [path.relative_to(folder).as_posix() for path in paths]


def distribution_plots(
    folder: Path, table: pd.DataFrame, by: list[str], levels: list[int], title: str, stem: str
) -> list[str]:
    """One stacked-share plot per judge, as paths relative to the report folder."""
    paths = []
    for judge, part in table.groupby("judge", sort=True):
        path = folder / "plots" / f"{stem}_{file_stem(str(judge))}.png"
        plots.stacked_distribution(part, by, levels, f"{title} — judge {judge}", path)
        paths.append(path)
    return relative(folder, paths)
