"""`dialbench metaeval`: how close judges and metrics are to human annotators."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from dialbench.cli.app import app
from dialbench.cli.tables import figure, table
from dialbench.errors import DialbenchError

if TYPE_CHECKING:
    from rich.table import Table

    from dialbench.metaeval.agreement import AgreementRow
    from dialbench.metaeval.correlation import CorrelationRow
    from dialbench.metaeval.evaluate import MetaEvalReport
    from dialbench.metaeval.stage import MetaevalOutput

# Kept here rather than imported, so `--help` does not load the statistics stack.
ALL_LANGUAGES, UNKNOWN_LANGUAGE = "all", "und"

console = Console()


def _dimension_pairs(values: list[str]) -> dict[str, str]:
    """--pair HUMAN=JUDGE values as judge dimension -> human dimension."""
    pairs: dict[str, str] = {}
    for value in values:
        human, sep, judge = value.partition("=")
        if not sep or not human or not judge:
            raise DialbenchError(f"--pair {value!r} is not of the form HUMAN=JUDGE")
        pairs[judge] = human
    return pairs


TEXT = ("dimension", "language", "scale", "rater", "note")


def _one_panel(report: MetaEvalReport) -> tuple[MetaEvalReport, str | None]:
    """With one language, its tables equal the "all" ones: keep "all" and say which it is."""
    languages = {a.language for a in report.agreement} - {ALL_LANGUAGES}
    if len(languages) != 1:
        return report, None
    (language,) = languages
    shown = report.model_copy(
        update={
            name: [row for row in getattr(report, name) if row.language == ALL_LANGUAGES]
            for name in ("agreement", "detection", "correlation")
        }
    )
    if language == UNKNOWN_LANGUAGE:
        return shown, (
            "no rating names a language, so every item counts as 'und' (undetermined); "
            "--language names it"
        )
    return shown, f"every item is in one language, {language}: 'all' is {language}"


def _scale(row: AgreementRow) -> str:
    """The dimension's scale, and the level alpha was computed at where they differ."""
    if row.alpha_level == row.scale:
        return row.scale
    return f"{row.scale} (α {row.alpha_level})"


def _correlation_table(rows: list[CorrelationRow]) -> Table:
    """One line per dimension, language and rater, a column per method: fits 80 columns with
    room for long rater names (p-values and intervals are in report.md)."""
    methods = list(dict.fromkeys(c.method for c in rows))
    by_rater: dict[tuple[str, str, str], dict[str, CorrelationRow]] = {}
    for c in rows:
        by_rater.setdefault((c.dimension, c.language, c.rater), {})[c.method] = c
    return table(
        "Correlation with the mean human score (r; p-values and 95% CIs in report.md)",
        ("dimension", "language", "rater", *methods, "items"),
        (
            (
                *key,
                *(figure(found[m].r, 3) if m in found else "-" for m in methods),
                str(max(c.n_items for c in found.values())),
            )
            for key, found in by_rater.items()
        ),
        text=TEXT,
    )


def print_metaeval_output(output: MetaevalOutput) -> None:
    print_metaeval_summary(output.report)


def print_metaeval_summary(full: MetaEvalReport) -> None:
    report, language_note = _one_panel(full)
    with_notes = any(a.note for a in report.agreement)
    console.print(
        table(
            "Human agreement",
            ("dimension", "language", "scale", "alpha", "items", "annotators")
            + (("note",) if with_notes else ()),
            (
                (
                    a.dimension,
                    a.language,
                    _scale(a),
                    figure(a.alpha, 3),
                    str(a.n_items),
                    str(a.n_annotators),
                )
                + ((a.note or "",) if with_notes else ())
                for a in report.agreement
            ),
            text=TEXT,
        )
    )
    if report.detection:
        console.print(
            table(
                "Detection against each annotator (F1 of the positive class, F1+, and of the "
                "negative, F1-)",
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
    if report.correlation:
        console.print(_correlation_table(report.correlation))
    for note in [*report.notes, *([language_note] if language_note else [])]:
        console.print(f"note: {note}", markup=False, soft_wrap=True)


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
    include_partial: Annotated[
        bool,
        typer.Option(
            help="Also the run's labels an annotator has not marked done (left out by default)."
        ),
    ] = False,
    scale: Annotated[
        list[str],
        typer.Option(help="DIMENSION=binary|nominal|ordinal|interval, or =ordinal:LOW,...,HIGH."),
    ] = [],  # noqa: B006
    detect: Annotated[
        list[str],
        typer.Option(
            help="DIMENSION=LABEL,...: also score it as detection of these labels (F1, with the "
            "human ceiling); judges answering in numbers need :judge<=N or :judge>=N, e.g. "
            "breakdown=X:judge<=2."
        ),
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
        int,
        typer.Option(
            help="Skip figures over every annotator pair (kappa, McNemar, the classification "
            "ceiling) above this many annotators."
        ),
    ] = 10,
    pair: Annotated[
        list[str],
        typer.Option(
            help="HUMAN=JUDGE: compare the judges' JUDGE dimension with the humans' HUMAN one, "
            "e.g. overall=sensibleness; repeatable."
        ),
    ] = [],  # noqa: B006
) -> None:
    """Agreement, correlations, detection (issues, labels), McNemar and diagnostics vs. human
    annotators."""
    # The statistics stack (pandas, scipy, scikit-learn, matplotlib) takes a second and a half
    # to import: only this command pays for it.
    from dialbench.metaeval.config import MetaevalConfig, MetaEvalOptions
    from dialbench.metaeval.scales import parse_detect, parse_scale
    from dialbench.metaeval.stage import metaeval as evaluate

    config = MetaevalConfig(
        against=against,
        predictions=predictions,
        protocol=protocol,
        include_partial=include_partial,
        pairs=_dimension_pairs(pair),
        options=MetaEvalOptions(
            scales=dict(parse_scale(s) for s in scale),
            detect=dict(parse_detect(d) for d in detect),
            bootstrap_resamples=bootstrap,
            seed=seed,
            max_pairwise_annotators=max_pairwise,
            default_language=language,
        ),
        output=output,
    )
    done = evaluate(config, run)
    for warning in done.warnings:
        console.print(f"warning: {warning}", markup=False, soft_wrap=True)
    print_metaeval_summary(done.report)
    console.print(
        f"wrote {len(done.written)} files to {done.folder} (report.md, CSV tables, PNG plots)",
        markup=False,
    )
