"""The report's sections: for each kind of judgment in the run, its tables (CSV in `tables/`)
and figures (PNG in `plots/`), with the note a reader needs to interpret them."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from pydantic import Field

from dialbench.analysis.dataset_stats import dataset_statistics
from dialbench.judge.labels import load_issue_labels
from dialbench.report import plots, tables
from dialbench.schema import Record
from dialbench.store import RunStore


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


def _table(
    folder: Path, name: str, title: str, frame: pd.DataFrame, shown: pd.DataFrame | None = None
) -> ReportTable:
    """The CSV holds `frame` as computed; HTML and markdown show `shown` (default: the same,
    with `issues.` dropped from column names)."""
    csv = Path("tables") / f"{name}.csv"
    frame.to_csv(folder / csv, index=False)
    if shown is None:
        shown = frame.rename(columns=lambda c: str(c).removeprefix(tables.ISSUES_PREFIX))
    return ReportTable(
        title=title,
        csv=csv.as_posix(),
        html=shown.to_html(index=False, na_rep="-", float_format=lambda v: f"{v:.3f}"),
        markdown=shown.to_markdown(index=False, floatfmt=".3f", missingval="-"),
    )


def _distribution_plots(
    folder: Path, table: pd.DataFrame, by: list[str], levels: list[int], title: str, stem: str
) -> list[str]:
    """One stacked-share figure per judge, as paths relative to the report folder."""
    paths = []
    for judge, part in table.groupby("judge", sort=True):
        path = folder / "plots" / f"{stem}_{plots.slug(str(judge))}.png"
        plots.stacked_distribution(part, by, levels, f"{title} — judge {judge}", path)
        paths.append(path.relative_to(folder).as_posix())
    return paths


def _relative(folder: Path, paths: list[Path]) -> list[str]:
    return [path.relative_to(folder).as_posix() for path in paths]


def issues_sections(frame: pd.DataFrame, folder: Path) -> list[Section]:
    """MEDAL: the chatbot x language heatmap, issue proportions and overall scores per language."""
    rates = tables.issue_rates(frame)
    if rates.empty:
        return []
    proportions = tables.issue_proportions(frame)
    overall = tables.overall_distribution(frame)
    scale = load_issue_labels().overall.scale
    return [
        Section(
            key="issues",
            title="Issues and overall score per chatbot and language",
            note="MEDAL's multidimensional evaluation: the share of dialogues a judge flagged "
            "with each issue, and the mean overall score (1-5); items = dialogues judged ok.",
            plots=_relative(folder, plots.issue_heatmaps(rates, folder / "plots")),
            tables=[_table(folder, "issue_rates", "Issue rates and mean overall", rates)],
        ),
        Section(
            key="issue-proportions",
            title="Issue proportions per language",
            plots=_relative(folder, plots.issue_proportion_bars(proportions, folder / "plots")),
            tables=[
                _table(
                    folder,
                    "issue_proportions",
                    "Dialogues flagged: share (flagged / judged)",
                    proportions,
                    tables.issue_proportions_wide(proportions),
                )
            ],
        ),
        Section(
            key="overall",
            title="Overall score distribution per language",
            plots=_distribution_plots(
                folder, overall, ["language"], scale, "Overall score per language", "overall"
            ),
            tables=[_table(folder, "overall_distribution", "Overall scores", overall)],
        ),
    ]


def holistic_sections(frame: pd.DataFrame, folder: Path) -> list[Section]:
    holistic = tables.holistic_distribution(frame)
    if holistic.empty:
        return []
    figures = _distribution_plots(
        folder, holistic, ["chatbot", "language"], [0, 1, 2], "Holistic quality", "holistic"
    )
    return [
        Section(
            key="holistic",
            title="Holistic quality 0/1/2 per chatbot and language",
            note="DiQAD: 0 fails the basics, 1 answers but lacks proactivity or "
            "informativeness, 2 meets all six dimensions.",
            plots=figures,
            tables=[_table(folder, "holistic_distribution", "Quality levels", holistic)],
        )
    ]


def table_sections(frame: pd.DataFrame, folder: Path) -> list[Section]:
    """Submetric means and the spread of repeated samples, where the run has them."""
    found = [
        (
            "submetrics",
            "Turn-level submetrics per chatbot and language",
            "Mean understandability (the response alone) and sensibleness (the response in its "
            "context), 1-5, over the chatbot turns judged ok.",
            "submetric_means",
            "Means over chatbot turns",
            tables.submetric_means(frame),
        ),
        (
            "samples",
            "Spread across samples",
            "Items judged several times: mean standard deviation of their samples, and the "
            "share of items on which every sample agreed.",
            "sample_spread",
            "Per protocol, judge and dimension",
            tables.sample_spread(frame),
        ),
    ]
    return [
        Section(key=key, title=title, note=note, tables=[_table(folder, name, caption, table)])
        for key, title, note, name, caption, table in found
        if not table.empty
    ]


def judges_section(frame: pd.DataFrame, folder: Path) -> Section:
    return Section(
        key="judges",
        title="Unscored judgments, tokens and cost per judge",
        note="Unscored = no usable answer after the bounded re-ask, or a failed call: counted "
        "here, never turned into a label. Cost is empty for unpriced models.",
        tables=[
            _table(
                folder, "judges", "Per protocol, judge and language", tables.usage_by_judge(frame)
            )
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
                _table(folder, f"dataset_{name}", name.replace("_", " ").capitalize(), frame)
            )
    return section


def judged_sections(frame: pd.DataFrame, folder: Path) -> list[Section]:
    return [
        *issues_sections(frame, folder),
        *holistic_sections(frame, folder),
        *table_sections(frame, folder),
        judges_section(frame, folder),
    ]
