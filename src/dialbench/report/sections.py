"""The report's sections: for each kind of judgment in the run, its tables (CSV in `tables/`)
and figures (PNG in `plots/`), with the note a reader needs to interpret them.

A protocol's own sections come from its package's `report.py` (`sections(frame, folder,
store)`, given that protocol's judgments, and the store for what judgments do not hold: dialogue
lengths, ChatSEEDs, opponents); the sections here hold for every protocol.
"""

from __future__ import annotations

from importlib import import_module
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
from pydantic import Field

from dialbench.analysis.dataset_stats import dataset_statistics
from dialbench.judge.registry import PROTOCOLS
from dialbench.plotting import file_stem
from dialbench.report import plots, tables
from dialbench.safe_text import markdown_frame, spreadsheet_frame
from dialbench.schema import Record
from dialbench.store import RunStore

if TYPE_CHECKING:
    from collections.abc import Callable


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


def table(
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
    """One stacked-share figure per judge, as paths relative to the report folder."""
    paths = []
    for judge, part in table.groupby("judge", sort=True):
        path = folder / "plots" / f"{stem}_{file_stem(str(judge))}.png"
        plots.stacked_distribution(part, by, levels, f"{title} — judge {judge}", path)
        paths.append(path)
    return relative(folder, paths)


def _protocol_sections(
    protocol: str,
) -> Callable[[pd.DataFrame, Path, RunStore], list[Section]] | None:
    """The `sections` function of a registered protocol's `report.py`, if it has one."""
    if protocol not in PROTOCOLS:
        return None
    module = f"{PROTOCOLS[protocol].__module__}.report"
    if find_spec(module) is None:
        return None
    found: Callable[[pd.DataFrame, Path, RunStore], list[Section]] = import_module(module).sections
    return found


def samples_section(frame: pd.DataFrame, folder: Path) -> list[Section]:
    spread = tables.sample_spread(frame)
    if spread.empty:
        return []
    return [
        Section(
            key="samples",
            title="Spread across samples",
            note="Items judged several times: mean standard deviation of their samples, and the "
            "share of items on which every sample agreed.",
            tables=[table(folder, "sample_spread", "Per protocol, judge and dimension", spread)],
        )
    ]


def judges_section(frame: pd.DataFrame, folder: Path) -> Section:
    return Section(
        key="judges",
        title="Unscored judgments, tokens and cost per judge",
        note="Unscored = no usable answer after the bounded re-ask, or a failed call: counted "
        "here, never turned into a label. Cost is empty for unpriced models.",
        tables=[
            table(
                folder, "judges", "Per protocol, judge and language", tables.usage_by_judge(frame)
            )
        ],
    )


def configurations_section(frame: pd.DataFrame, folder: Path) -> Section:
    return Section(
        key="configurations",
        title="Judge configurations",
        note="What each judge was asked under: the protocol's options, the generation "
        "parameters, and the sha256 of the prompt and data files (first 8 hex digits). Where one "
        "judge judged a protocol under several configurations, tables name it with the "
        "configuration in brackets, and each configuration's judgments are counted apart.",
        tables=[
            table(folder, "configurations", "Per protocol and judge", tables.configurations(frame))
        ],
    )


def dataset_section(store: RunStore, folder: Path) -> Section:
    """The dataset statistics (MEDAL Table 3 and more), one table per list of rows."""
    stats = dataset_statistics(store)
    section = Section(key="dataset", title="Dataset statistics")
    for name in type(stats).model_fields:
        rows = getattr(stats, name)
        if rows:
            frame = pd.json_normalize([row.model_dump(mode="json") for row in rows])
            section.tables.append(
                table(folder, f"dataset_{name}", name.replace("_", " ").capitalize(), frame)
            )
    return section


def judged_sections(frame: pd.DataFrame, folder: Path, store: RunStore) -> list[Section]:
    """Each protocol's own sections, in registry order, then those every protocol shares."""
    present = set(frame["protocol"])
    found: list[Section] = []
    for protocol in [p for p in PROTOCOLS if p in present] + sorted(present - set(PROTOCOLS)):
        sections = _protocol_sections(protocol)
        if sections is not None:
            own = frame[frame["protocol"] == protocol].dropna(axis=1, how="all")
            found += sections(own, folder, store)
    return [
        *found,
        *samples_section(frame, folder),
        judges_section(frame, folder),
        configurations_section(frame, folder),
    ]
