"""Writing the report: `index.html` (Jinja2 template), `report.md`, one CSV per table in
`tables/`, and the PNGs in `plots/`, all in one folder a researcher can open or copy."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from jinja2 import Environment, PackageLoader
from pydantic import Field

from dialbench.analysis.dataset_stats import dataset_statistics
from dialbench.errors import DialbenchError
from dialbench.judge.labels import load_issue_labels
from dialbench.report import plots, tables
from dialbench.report.frames import judgment_frame
from dialbench.schema import Dialogue, Record, utc_now
from dialbench.store import RunStore
from dialbench.version import __version__


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


class ReportOutput(Record):
    folder: Path
    html: Path
    markdown: Path
    sections: list[Section]
    notes: list[str]


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


def _relative(folder: Path, paths: list[Path]) -> list[str]:
    return [path.relative_to(folder).as_posix() for path in paths]


def _judged_sections(frame: pd.DataFrame, folder: Path) -> list[Section]:
    out = folder / "plots"
    sections = []
    rates = tables.issue_rates(frame)
    if not rates.empty:
        proportions = tables.issue_proportions(frame)
        overall = tables.overall_distribution(frame)
        scale = load_issue_labels().overall.scale
        overall_plots = [
            plots.stacked_distribution(
                part,
                ["language"],
                scale,
                f"Overall score per language — judge {judge}",
                out / f"overall_{plots.slug(str(judge))}.png",
            )
            for judge, part in overall.groupby("judge", sort=True)
        ]
        sections += [
            Section(
                key="issues",
                title="Issues and overall score per chatbot and language",
                note="MEDAL's multidimensional evaluation: the share of dialogues a judge flagged "
                "with each issue, and the mean overall score (1-5); items = dialogues judged ok.",
                plots=_relative(folder, plots.issue_heatmaps(rates, out)),
                tables=[_table(folder, "issue_rates", "Issue rates and mean overall", rates)],
            ),
            Section(
                key="issue-proportions",
                title="Issue proportions per language",
                plots=_relative(folder, plots.issue_proportion_bars(proportions, out)),
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
                plots=_relative(folder, overall_plots),
                tables=[_table(folder, "overall_distribution", "Overall scores", overall)],
            ),
        ]
    holistic = tables.holistic_distribution(frame)
    if not holistic.empty:
        holistic_plots = [
            plots.stacked_distribution(
                part,
                ["chatbot", "language"],
                [0, 1, 2],
                f"Holistic quality (DiQAD 0/1/2) — judge {judge}",
                out / f"holistic_{plots.slug(str(judge))}.png",
            )
            for judge, part in holistic.groupby("judge", sort=True)
        ]
        sections.append(
            Section(
                key="holistic",
                title="Holistic quality 0/1/2 per chatbot and language",
                note="DiQAD: 0 fails the basics, 1 answers but lacks proactivity or "
                "informativeness, 2 meets all six dimensions.",
                plots=_relative(folder, holistic_plots),
                tables=[_table(folder, "holistic_distribution", "Quality levels", holistic)],
            )
        )
    submetrics = tables.submetric_means(frame)
    if not submetrics.empty:
        sections.append(
            Section(
                key="submetrics",
                title="Turn-level submetrics per chatbot and language",
                note="Mean understandability (the response alone) and sensibleness (the "
                "response in its context), 1-5, over the chatbot turns judged ok.",
                tables=[_table(folder, "submetric_means", "Submetric means", submetrics)],
            )
        )
    spread = tables.sample_spread(frame)
    if not spread.empty:
        sections.append(
            Section(
                key="samples",
                title="Spread across samples",
                note="Items judged several times: mean standard deviation of their samples, and "
                "the share of items on which every sample agreed.",
                tables=[_table(folder, "sample_spread", "Sample spread", spread)],
            )
        )
    sections.append(
        Section(
            key="judges",
            title="Unscored judgments, tokens and cost per judge",
            note="Unscored = no usable answer after the bounded re-ask, or a failed call: "
            "counted here, never turned into a label. Cost is empty for unpriced models.",
            tables=[
                _table(
                    folder,
                    "judges",
                    "Per protocol, judge and language",
                    tables.usage_by_judge(frame),
                )
            ],
        )
    )
    return sections


def _dataset_section(store: RunStore, folder: Path) -> Section:
    stats = dataset_statistics(store)
    section = Section(key="dataset", title="Dataset statistics")
    for name in type(stats).model_fields:
        rows = getattr(stats, name)
        if rows:
            frame = pd.json_normalize([row.model_dump(mode="json") for row in rows])
            section.tables.append(_table(folder, f"dataset_{name}", name.replace("_", " "), frame))
    return section


def _markdown(run: Path, sections: list[Section], notes: list[str]) -> str:
    lines = [f"# dialbench report: {run}", "", *notes]
    for section in sections:
        lines += ["", f"## {section.title}", ""]
        if section.note:
            lines += [section.note, ""]
        lines += [f"![{section.title}]({plot})" for plot in section.plots]
        for table in section.tables:
            lines += ["", f"### {table.title}", "", table.markdown, "", f"CSV: {table.csv}"]
    return "\n".join(lines) + "\n"


def write_report(store: RunStore, folder: Path) -> ReportOutput:
    """Every table and figure the run's dialogues and judgments support, written to `folder`."""
    run = store.path.parent
    dialogues = store.count(Dialogue)
    frame = judgment_frame(store)
    if dialogues == 0 and frame.empty:
        raise DialbenchError(
            f"{run} holds no dialogues and no judgments: nothing to report "
            f"(dialbench import FILE --run {run}; dialbench judge {run})"
        )
    for sub, pattern in (("plots", "*.png"), ("tables", "*.csv")):
        (folder / sub).mkdir(parents=True, exist_ok=True)
        for stale in (folder / sub).glob(pattern):
            stale.unlink()
    notes = []
    if frame.empty:
        notes.append(f"No judgments yet: judge the dialogues with `dialbench judge {run}`.")
    sections = _judged_sections(frame, folder) if not frame.empty else []
    if dialogues:
        sections.append(_dataset_section(store, folder))
    environment = Environment(
        loader=PackageLoader("dialbench.report", "templates"), autoescape=True
    )
    html = environment.get_template("report.html.j2").render(
        run=str(run),
        dialogues=dialogues,
        judgments=len(frame),
        version=__version__,
        created=f"{utc_now():%Y-%m-%d %H:%M} UTC",
        sections=sections,
        notes=notes,
    )
    html_path, markdown_path = folder / "index.html", folder / "report.md"
    html_path.write_text(html, encoding="utf-8")
    markdown_path.write_text(_markdown(run, sections, notes), encoding="utf-8")
    return ReportOutput(
        folder=folder, html=html_path, markdown=markdown_path, sections=sections, notes=notes
    )
