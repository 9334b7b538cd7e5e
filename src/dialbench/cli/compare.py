"""`dialbench compare`: a candidate's figures against a baseline's, on the seeds both ran, as a
terminal table, markdown (a pull-request comment), JSON or a standalone HTML page."""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer
from rich.console import Console

from dialbench.cli.app import app
from dialbench.cli.terminal_tables import KeyedTable, screen_width
from dialbench.figures.family import Correction
from dialbench.figures.figure_basis import BASES, Basis
from dialbench.safe_text import markdown_frame, markdown_text

if TYPE_CHECKING:
    import pandas as pd

    from dialbench.figures.versions import Comparison, DifferenceRow

OutputFormat = Literal["table", "markdown", "json", "html"]
KEYS = ("protocol", "judge", "dimension", "language", "chatbot")
TEXT = (*KEYS, "holds", "note")
KEPT = (*KEYS, "difference", "holds")  # on any screen: which figure, how it moved, if it holds
DROP_FIRST = ("note", "detectable", "seeds", "p adjusted", "baseline", "candidate")

ChatbotOption = Annotated[
    list[str],
    typer.Option(
        "--chatbot",
        "-c",
        help="Which chatbots: NAME (in both runs), or twice: the baseline's, then the "
        "candidate's (with one run: two of its chatbots).",
    ),
]
FiguresOption = Annotated[
    Basis,
    typer.Option(
        "--figures",
        help="What the figures are computed on: "
        + "; ".join(f"{name}: {meaning}" for name, meaning in BASES.items())
        + ". Default auto.",
    ),
]
CorrectionOption = Annotated[
    Correction,
    typer.Option(help="holm: the chance of any false difference; fdr_bh: their expected share."),
]


def holds(row: DifferenceRow) -> str:
    """Which way a difference that holds goes: worse or better, in the figure's direction."""
    if not row.holds:
        return ""
    return "worse" if row.worse_by > 0 else "better"


def _interval(row: DifferenceRow) -> str:
    return "-" if row.low is None or row.high is None else f"[{row.low:+.3f}, {row.high:+.3f}]"


def shown(comparison: Comparison) -> pd.DataFrame:
    """The rows as printed: figures to three places; the candidate chatbot's name only when
    several are compared."""
    import pandas as pd

    several = len(comparison.pairs) > 1
    return pd.DataFrame(
        [
            {
                "protocol": row.protocol,
                "judge": row.judge,
                "dimension": row.dimension,
                "language": row.language,
                **({"chatbot": row.candidate} if several else {}),
                "seeds": str(row.units),
                "baseline": f"{row.baseline_value:.3f}",
                "candidate": f"{row.candidate_value:.3f}",
                "difference": f"{row.difference:+.3f}",
                "95% interval": _interval(row),
                "p adjusted": "-" if row.p_adjusted is None else f"{row.p_adjusted:.3g}",
                "detectable": "-" if row.detectable is None else f"{row.detectable:.3f}",
                "holds": holds(row),
                "note": row.note,
            }
            for row in comparison.rows
        ]
    )


def headline(comparison: Comparison) -> str:
    marks = [holds(row) for row in comparison.rows]
    pairs = "; ".join(f"{pair.candidate} vs {pair.baseline}" for pair in comparison.pairs)
    runs = comparison.runs
    where = (
        f"run {runs.baseline}"
        if runs.baseline == runs.candidate
        else f"candidate {runs.candidate} vs baseline {runs.baseline}"
    )
    return (
        f"{len(marks)} differences, candidate − baseline: {marks.count('worse')} worse and "
        f"{marks.count('better')} better that hold ({where}: {pairs})"
    )


def as_markdown(comparison: Comparison) -> str:
    body = markdown_frame(shown(comparison)).to_markdown(index=False, disable_numparse=True)
    return (
        f"**dialbench compare**: {markdown_text(headline(comparison))}\n\n{body}\n\n"
        f"{markdown_text(comparison.design)}\n\n{markdown_text(comparison.figures)}\n"
    )


def as_html(comparison: Comparison) -> str:
    """A page with no script and no outside resource: every name in it escaped."""
    rows = shown(comparison).to_html(index=False, escape=True, border=0)
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        "<title>dialbench compare</title><style>"
        "body{font-family:system-ui,sans-serif;margin:2em}"
        "table{border-collapse:collapse}td,th{padding:.2em .6em;border-bottom:1px solid #ddd}"
        "td{text-align:right}</style></head><body>\n"
        f"<h1>dialbench compare</h1>\n<p>{html.escape(headline(comparison))}</p>\n{rows}\n"
        f"<p>{html.escape(comparison.design)}</p>\n<p>{html.escape(comparison.figures)}</p>\n"
        "</body></html>\n"
    )


def print_table(comparison: Comparison, console: Console, width: int | None) -> None:
    frame = shown(comparison)
    console.print(headline(comparison), markup=False, highlight=False)
    KeyedTable(
        "Candidate against baseline",
        list(frame.columns),
        list(frame.itertuples(index=False)),
        kept=KEPT,
        text=TEXT,
        compact=True,
        drop_first=DROP_FIRST,
    ).print(console, width)
    console.print(comparison.design, markup=False, highlight=False)
    console.print(comparison.figures, markup=False, highlight=False)


def write(comparison: Comparison, fmt: OutputFormat, output: Path | None) -> None:
    """Print the comparison, or write it to `output`."""
    if fmt == "table":
        if output is None:
            console = Console()
            print_table(comparison, console, screen_width(console))
            return
        with output.open("w", encoding="utf-8") as handle:
            print_table(comparison, Console(file=handle, width=200, color_system=None), None)
        return
    text = {
        "markdown": as_markdown,
        "json": lambda c: c.model_dump_json(indent=2) + "\n",
        "html": as_html,
    }[fmt](comparison)
    if output is None:
        print(text, end="")
    else:
        output.write_text(text, encoding="utf-8")


@app.command()
def compare(
    run_a: Annotated[Path, typer.Argument(help="The baseline's run directory.")],
    run_b: Annotated[
        Path | None,
        typer.Argument(help="The candidate's; without it, two chatbots of RUN_A are compared."),
    ] = None,
    chatbot: ChatbotOption = [],  # noqa: B006  (typer reads defaults, never mutates them)
    correction: CorrectionOption = "holm",
    figures: FiguresOption = "auto",
    fmt: Annotated[
        OutputFormat,
        typer.Option(
            "--format", "-f", help="table, markdown (a pull-request comment), json, html."
        ),
    ] = "table",
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write to this file, not stdout.")
    ] = None,
) -> None:
    """The candidate (RUN_B) against the baseline (RUN_A), per protocol, judge, dimension and
    language, on the seeds both ran: difference = candidate − baseline with its 95% interval,
    p-values corrected over the table; `holds` says which differences are real."""
    from dialbench.figures.versions import compare_versions  # pandas, scipy when it runs

    write(compare_versions(run_a, run_b, chatbot, correction, basis=figures), fmt, output)
