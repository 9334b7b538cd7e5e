"""`dialbench metaeval`: how close judges and metrics are to human annotators."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from dialbench.cli import app
from dialbench.cli.tables import figure, table
from dialbench.errors import DialbenchError
from dialbench.schema import Judgment
from dialbench.store import RunStore

if TYPE_CHECKING:
    from dialbench.metaeval.evaluate import MetaEvalReport
    from dialbench.metaeval.ratings import Rating

console = Console()


TEXT = ("dimension", "language", "scale", "rater", "95% CI", "note")


def _print_summary(report: MetaEvalReport) -> None:
    console.print(
        table(
            "Human agreement",
            ("dimension", "language", "scale", "alpha", "items", "annotators", "note"),
            (
                (
                    a.dimension,
                    a.language,
                    a.alpha_level,
                    figure(a.alpha, 3),
                    str(a.n_items),
                    str(a.n_annotators),
                    a.note or "",
                )
                for a in report.agreement
            ),
            text=TEXT,
        )
    )
    if report.detection:
        console.print(
            table(
                "Issue detection (F1+ / F1-)",
                ("dimension", "language", "rater", "F1+", "F1-", "accuracy", "items"),
                (
                    (
                        d.dimension,
                        d.language,
                        d.rater,
                        figure(d.f1_positive, 3),
                        figure(d.f1_negative, 3),
                        figure(d.accuracy, 3),
                        str(d.n_items),
                    )
                    for d in report.detection
                ),
                text=TEXT,
            )
        )
    spearman = [c for c in report.correlation if c.method == "spearman"]
    if spearman:
        console.print(
            table(
                "Spearman with the mean human score",
                ("dimension", "language", "rater", "r", "95% CI", "p", "items"),
                (
                    (
                        c.dimension,
                        c.language,
                        c.rater,
                        figure(c.r, 3),
                        f"[{figure(c.ci_low, 3)}, {figure(c.ci_high, 3)}]",
                        figure(c.p_value, 3),
                        str(c.n_items),
                    )
                    for c in spearman
                ),
                text=TEXT,
            )
        )
    for note in report.notes:
        console.print(f"note: {note}")


@app.command()
def metaeval(
    run: Annotated[
        Path | None, typer.Argument(help="Run directory: its annotations and judgments are used.")
    ] = None,
    against: Annotated[
        list[Path],
        typer.Option(help="Human ratings: long-format CSV/TSV/JSONL, or ABC-Eval behaviour JSON."),
    ] = [],  # noqa: B006  (typer reads defaults, never mutates them)
    predictions: Annotated[
        list[Path], typer.Option(help="Judge or metric ratings in the long format.")
    ] = [],  # noqa: B006
    protocol: Annotated[str | None, typer.Option(help="Judgments of this protocol only.")] = None,
    scale: Annotated[
        list[str],
        typer.Option(help="DIMENSION=binary|nominal|ordinal|interval, or =ordinal:LOW,...,HIGH."),
    ] = [],  # noqa: B006
    language: Annotated[
        str | None, typer.Option(help="Language of items that no rating names one for.")
    ] = None,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Default: RUN/metaeval, else ./metaeval.")
    ] = None,
    bootstrap: Annotated[int, typer.Option(help="Bootstrap resamples for CIs.")] = 1000,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap.")] = 0,
    max_pairwise: Annotated[
        int, typer.Option(help="Skip pairwise figures (kappa, ceiling) above this many annotators.")
    ] = 10,
) -> None:
    """Agreement, correlations, issue detection, McNemar and diagnostics vs. human annotators."""
    # The statistics stack (pandas, scipy, scikit-learn, matplotlib) takes a second and a half
    # to import: only this command pays for it.
    from dialbench.metaeval.evaluate import MetaEvalOptions, meta_evaluate
    from dialbench.metaeval.files import read_ratings
    from dialbench.metaeval.ratings import from_store
    from dialbench.metaeval.report import write_report
    from dialbench.metaeval.scales import parse_scale

    ratings: list[Rating] = []
    judgments: list[Judgment] = []
    if run is not None:
        with RunStore.open(run, create=False) as store:
            ratings, judgments = from_store(store, protocol)
    for path in against:
        ratings += read_ratings(path, "human")
    for path in predictions:
        ratings += read_ratings(path, "judge")
    if not ratings:
        raise DialbenchError("nothing to meta-evaluate: give a RUN with annotations, or --against")
    options = MetaEvalOptions(
        scales=dict(parse_scale(s) for s in scale),
        bootstrap_resamples=bootstrap,
        seed=seed,
        max_pairwise_annotators=max_pairwise,
        default_language=language,
    )
    report = meta_evaluate(ratings, judgments, options)
    folder = output or (run / "metaeval" if run is not None else Path("metaeval"))
    written = write_report(report, folder)
    _print_summary(report)
    console.print(f"wrote {len(written)} files to {folder} (report.md, CSV tables, PNG plots)")
