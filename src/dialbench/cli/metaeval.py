"""`dialbench metaeval`: how close judges and metrics are to human annotators."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Protocol, TypeVar

import typer
from rich.console import Console

from dialbench.cli.app import app
from dialbench.cli.options import PairOption, ScaleOption, dimension_pairs
from dialbench.cli.terminal_tables import KeyedTable, figure, screen_width

if TYPE_CHECKING:
    from dialbench.metaeval.agreement import HumanAgreementRow
    from dialbench.metaeval.api import MetaevalResult
    from dialbench.metaeval.correlation import CorrelationRow
    from dialbench.metaeval.detection import DetectionRow
    from dialbench.metaeval.evaluate import MetaEvalTables

console = Console()


class _OfDimension(Protocol):
    @property
    def dimension(self) -> str: ...


R = TypeVar("R", bound=_OfDimension)


TEXT = ("dimension", "lang", "scale", "rater", "note")


def _one_language_tables(report: MetaEvalTables) -> tuple[MetaEvalTables, str | None]:
    """With one language, its tables equal the "all" ones: keep "all" and say which it is."""
    from dialbench.ratings import UNKNOWN_LANGUAGE
    from dialbench.schema import ALL_LANGUAGES

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


def _scale(row: HumanAgreementRow) -> str:
    """The dimension's scale, and the level alpha was computed at where they differ."""
    if row.alpha_level == row.scale:
        return row.scale
    return f"{row.scale} (α {row.alpha_level})"


def _interval(low: float | None, high: float | None) -> str:
    return "-" if low is None or high is None else f"[{low:.2f}, {high:.2f}]"


def _by_dimension(rows: Sequence[R]) -> dict[str, list[R]]:
    grouped: dict[str, list[R]] = {}
    for row in rows:
        grouped.setdefault(row.dimension, []).append(row)
    return grouped


def _agreement_table(rows: list[HumanAgreementRow]) -> KeyedTable:
    return KeyedTable(
        "Human agreement",
        ("dimension", "lang", "scale", "alpha", "items", "annotators"),
        [
            (
                a.dimension,
                a.language,
                _scale(a),
                figure(a.alpha, 3),
                str(a.n_items),
                str(a.n_annotators),
            )
            for a in rows
        ],
        kept=("dimension", "lang", "alpha"),
        text=TEXT,
        compact=True,
    )


def _detection_tables(rows: list[DetectionRow]) -> Iterator[KeyedTable]:
    """One table per dimension, the interval of F1+ beside it, so the ceiling reads as a judge
    does; the counts every figure rests on at the end."""
    for dimension, part in _by_dimension(rows).items():
        yield KeyedTable(
            f"Detection against each annotator, {dimension} (F1+ of the positive class with its "
            "95% CI, F1- of the negative)",
            ("lang", "rater", "F1+", "95% CI", "F1-", "items", "dialogues"),
            [
                (
                    d.language,
                    d.rater,
                    figure(d.f1_positive, 3),
                    _interval(d.f1_positive_low, d.f1_positive_high),
                    figure(d.f1_negative, 3),
                    str(d.n_items),
                    str(d.n_dialogues),
                )
                for d in part
            ],
            kept=("lang", "rater", "F1+"),
            text=TEXT,
            compact=True,
        )


def _correlation_tables(rows: list[CorrelationRow]) -> Iterator[KeyedTable]:
    """One table per dimension, one line per language and rater: Pearson with its interval and
    Spearman fit 80 columns; Kendall's tau, p-values and every interval are in report.md."""
    for dimension, part in _by_dimension(rows).items():
        by_rater: dict[tuple[str, str], dict[str, CorrelationRow]] = {}
        for c in part:
            by_rater.setdefault((c.language, c.rater), {})[c.method] = c
        yield KeyedTable(
            f"Correlation with the mean human score, {dimension} (Pearson r with its 95% CI, "
            "Spearman; Kendall, p-values and every interval in report.md)",
            ("lang", "rater", "pearson", "95% CI", "spearman", "items", "dialogues"),
            [
                (
                    *key,
                    figure(found["pearson"].r, 3),
                    _interval(found["pearson"].ci_low, found["pearson"].ci_high),
                    figure(found["spearman"].r, 3),
                    str(found["pearson"].n_items),
                    str(found["pearson"].n_dialogues),
                )
                for key, found in by_rater.items()
            ],
            kept=("lang", "rater", "pearson"),
            text=TEXT,
            compact=True,
        )


KINDS = {".csv": "CSV table", ".png": "PNG plot"}


def written_summary(paths: Sequence[Path]) -> str:
    """The files by kind, each count from the files themselves: a kind none of them is (no plot
    when no judge has a figure) is not named."""
    named = [p.name for p in paths if p.suffix not in KINDS]
    counts = [(sum(p.suffix == suffix for p in paths), kind) for suffix, kind in KINDS.items()]
    kinds = [f"{n} {kind}{'s' if n != 1 else ''}" for n, kind in counts if n]
    return f"{len(paths)} files ({', '.join([*named, *kinds])})"


def print_metaeval_output(output: MetaevalResult) -> None:
    print_metaeval_summary(output.report)


def print_metaeval_summary(full: MetaEvalTables) -> None:
    report, language_note = _one_language_tables(full)
    tables = [
        _agreement_table(report.agreement),
        *_detection_tables(report.detection),
        *_correlation_tables(report.correlation),
    ]
    for keyed in tables:
        keyed.print(console, screen_width(console))
    agreement_notes = [f"{a.dimension} {a.language}: {a.note}" for a in report.agreement if a.note]
    for note in [*agreement_notes, *report.notes, *([language_note] if language_note else [])]:
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
    protocol: Annotated[
        list[str],
        typer.Option(
            help="Judgments of this protocol only; repeat it to set several side by side (a "
            "judge and the metric distilled from it)."
        ),
    ] = [],  # noqa: B006
    include_partial: Annotated[
        bool,
        typer.Option(
            help="Also the run's labels an annotator has not marked done (left out by default)."
        ),
    ] = False,
    scale: ScaleOption = [],  # noqa: B006
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
    bootstrap: Annotated[
        int,
        typer.Option(help="Resamples of the dialogues behind every 95% interval and p-value."),
    ] = 1000,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap.")] = 0,
    max_pairwise: Annotated[
        int,
        typer.Option(
            help="Skip figures over every annotator pair (kappa, McNemar, the classification "
            "ceiling) above this many annotators."
        ),
    ] = 10,
    pair: PairOption = [],  # noqa: B006
) -> None:
    """Agreement, correlations, detection (issues, labels), McNemar and diagnostics vs. human
    annotators."""
    # The statistics stack (pandas, scipy, scikit-learn, matplotlib) takes a second and a half
    # to import: only this command pays for it, once its files are there.
    from dialbench.io.registry import check_exists

    for path in against:
        check_exists(path)
    from dialbench.metaeval.api import metaeval as evaluate
    from dialbench.metaeval.config import MetaevalConfig, MetaEvalOptions
    from dialbench.metaeval.scales import parse_detect, parse_scale

    config = MetaevalConfig(
        against=against,
        predictions=predictions,
        protocol=protocol,
        include_partial=include_partial,
        pairs=dimension_pairs(pair),
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
    console.print(f"wrote {written_summary(done.written)} to {done.folder}", markup=False)
