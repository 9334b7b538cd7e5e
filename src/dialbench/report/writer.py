"""Writing the report: `index.html` (Jinja2 template), `report.md`, one CSV per table in
`tables/`, and the PNGs in `plots/`, all in one folder a researcher can open or copy."""

from __future__ import annotations

from pathlib import Path

from jinja2 import Environment, PackageLoader

from dialbench.errors import DialbenchError
from dialbench.figures.intervals import DESIGN
from dialbench.report.common_sections import dataset_section, judged_sections
from dialbench.report.config import ReportConfig
from dialbench.report.context import ReportContext
from dialbench.report.section import Section
from dialbench.safe_text import markdown_text
from dialbench.schema import Dialogue, Record, utc_now
from dialbench.store import RunStore
from dialbench.version import __version__


class ReportResult(Record):
    folder: Path
    html: Path
    markdown: Path
    sections: list[Section]
    notes: list[str]


def _markdown(run: Path, sections: list[Section], notes: list[str]) -> str:
    lines = [f"# dialbench report: {markdown_text(str(run))}", "", *notes]
    for section in sections:
        lines += ["", f"## {section.title}", ""]
        if section.note:
            lines += [section.note, ""]
        lines += [f"![{section.title}]({plot})" for plot in section.plots]
        for table in section.tables:
            lines += ["", f"### {table.title}", "", table.markdown, "", f"CSV: {table.csv}"]
    return "\n".join(lines) + "\n"


def write_report(store: RunStore, folder: Path) -> ReportResult:
    """Every table and plot the run's dialogues and judgments support, written to `folder`."""
    run = store.path.parent
    dialogues = store.count(Dialogue)
    context = ReportContext(store, folder)
    frame = context.frame
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
    elif any(not found.empty for found in context.observations.values()):
        notes.append(f"{DESIGN}.")
    sections = judged_sections(context) if not frame.empty else []
    if dialogues:
        sections.append(dataset_section(store, folder))
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
    return ReportResult(
        folder=folder, html=html_path, markdown=markdown_path, sections=sections, notes=notes
    )


def report(config: ReportConfig, run_dir: str | Path) -> ReportResult:
    """The report of the run directory's store, written to `config.output` (default: RUN/report)."""
    with RunStore.open(run_dir, create=False) as store:
        return write_report(store, config.output or Path(run_dir) / "report")
