"""`dialbench report`: the chatbot-evaluation report of a run, as HTML, markdown, CSV and PNG."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from dialbench.cli.app import app
from dialbench.cli.options import DEFAULT_RUN, StoredRun

console = Console()


@app.command(name="report")
def report_command(
    run: StoredRun = DEFAULT_RUN,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Folder; default RUN/report.")
    ] = None,
) -> None:
    """Write the report: issue heatmaps, distributions per language, judges' unscored rates and
    cost, dataset statistics; every rate with its count."""
    from dialbench.report.config import ReportConfig
    from dialbench.report.writer import report  # pandas, matplotlib when it runs

    written = report(ReportConfig(output=output), run)
    for note in written.notes:
        console.print(f"note: {note}", highlight=False, markup=False)
    titles = ", ".join(section.title for section in written.sections)
    console.print(f"sections: {titles}", highlight=False, markup=False)
    console.print(f"wrote {written.html} and {written.markdown}", highlight=False, markup=False)
