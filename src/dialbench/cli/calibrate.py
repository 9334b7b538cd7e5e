"""`dialbench calibrate`: map a judge's answers onto the humans' scale, fitted on a run's human
labels and cross-validated over dialogues, or apply a saved calibration to another run."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from dialbench.calibrate.config import ThresholdRule  # a light record: the option's choices
from dialbench.cli.app import app
from dialbench.cli.options import DEFAULT_RUN, PairOption, RunDir, ScaleOption, dimension_pairs
from dialbench.cli.terminal_tables import figure, table

if TYPE_CHECKING:
    from dialbench.calibrate.api import CalibrateResult
    from dialbench.calibrate.config import CalibratedAgreementRow, Figure

console = Console()


def _cell(found: Figure) -> str:
    """The figure and its interval, tight enough for three of them in 80 columns."""
    if found.low is None or found.high is None:
        return figure(found.value, 2)
    return f"{figure(found.value, 2)} [{found.low:.2f},{found.high:.2f}]"


FIGURES = {
    "pearson": "Pearson r with the mean human value",
    "f1": "F1 of the positive class against each annotator",
}


def print_agreement(rows: list[CalibratedAgreementRow], title: str) -> None:
    """One table per judge and dimension, a line per language; its notes beneath it."""
    configurations: dict[str, set[str]] = {}
    groups: dict[tuple[str, str, str, str], list[CalibratedAgreementRow]] = {}
    for row in rows:
        configurations.setdefault(row.judge_model, set()).add(row.configuration)
        key = (row.judge_model, row.configuration, row.judge_dimension, row.dimension)
        groups.setdefault(key, []).append(row)
    console.print(title, markup=False, soft_wrap=True)
    for (model, configuration, judge_dimension, dimension), part in groups.items():
        judge = model if len(configurations[model]) == 1 else f"{model} [{configuration}]"
        console.print(
            table(
                f"{judge}, {judge_dimension} -> {dimension}: {FIGURES[part[0].figure]}",
                ("lang", "raw", "calibrated", "gain", "items", "dialogues"),
                (
                    (
                        row.language,
                        _cell(row.raw),
                        _cell(row.calibrated),
                        _cell(row.gain),
                        str(row.n_items),
                        str(row.n_dialogues),
                    )
                    for row in part
                ),
                text=("lang",),
                compact=True,
            )
        )
        notes = dict.fromkeys(f"{row.language}: {row.note}" for row in part if row.note)
        for note in notes:
            console.print(f"note: {note}", markup=False, soft_wrap=True)


def print_calibrate_output(done: CalibrateResult) -> None:
    calibration = done.calibration
    if done.applied:
        title = (
            f"Calibration {calibration.digest[:12]} from {done.file}, as cross-validated on the "
            "run it was fitted on:"
        )
    else:
        title = (
            "Raw against calibrated on the labelled items, each calibrated value fitted without "
            f"its dialogue ({calibration.settings.folds} folds over dialogues); gain is "
            "calibrated minus raw; 95% intervals over dialogues:"
        )
    print_agreement(calibration.agreement, title)
    for fitted in calibration.maps:
        if fitted.map.kind == "threshold":
            cell = fitted.cell
            side = "<=" if fitted.map.positive_at == "most" else ">="
            console.print(
                f"threshold {cell.judge_model} {cell.judge_dimension} -> {cell.dimension} "
                f"{cell.language}: positive at {cell.judge_dimension} {side} "
                f"{fitted.map.threshold:g} ({fitted.map.rule})",
                markup=False,
                soft_wrap=True,
            )
    for note in done.notes:
        console.print(f"note: {note}", markup=False, soft_wrap=True)
    stored = done.stored
    console.print(
        f"{'applied' if done.applied else 'wrote'} calibration {calibration.digest[:12]} "
        f"{'from' if done.applied else 'to'} {done.file}; calibrated judgments: {stored.added} "
        f"added, {stored.unchanged} unchanged, {stored.replaced} replaced",
        markup=False,
        soft_wrap=True,
    )


@app.command()
def calibrate(
    run: RunDir = DEFAULT_RUN,
    protocol: Annotated[
        str | None, typer.Option(help="The judgments of this protocol; default: the run's one.")
    ] = None,
    judge: Annotated[
        list[str],
        typer.Option(
            "--judge",
            "-j",
            help="Only this judge: SPEC, or 'SPEC \\[c-…]' for one configuration; repeatable. "
            "Default: every judge of the protocol.",
        ),
    ] = [],  # noqa: B006  (typer reads defaults, never mutates them)
    pair: PairOption = [],  # noqa: B006
    scale: ScaleOption = [],  # noqa: B006
    detect: Annotated[
        list[str],
        typer.Option(
            help="DIMENSION=LABEL,...: calibrate a threshold for detecting these labels; "
            ":judge<=N or :judge>=N scores the judge's raw numbers and fixes the side."
        ),
    ] = [],  # noqa: B006
    folds: Annotated[int, typer.Option(min=2, help="Cross-validation folds over dialogues.")] = 5,
    threshold: Annotated[
        ThresholdRule,
        typer.Option(
            help="f1: the threshold that maximises F1 of the positive class; base-rate: the one "
            "that says positive as often as the humans do."
        ),
    ] = "f1",
    apply: Annotated[
        Path | None,
        typer.Option(help="Apply this calibration file to RUN instead of fitting one."),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="The calibration file; default RUN/calibration.json."),
    ] = None,
    bootstrap: Annotated[
        int, typer.Option(help="Resamples of the dialogues behind every 95% interval.")
    ] = 1000,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap.")] = 0,
) -> None:
    """Fit a monotone map from each judge's answers to the humans' (isotonic onto ordered labels
    and scores, a threshold for binary ones) per dimension and language, cross-validated over
    dialogues; store the calibrated judgments beside the raw ones, for metaeval to compare."""
    from dialbench.calibrate.api import calibrate as run_calibration
    from dialbench.calibrate.config import CalibrateConfig, FitSettings
    from dialbench.metaeval.scales import parse_detect, parse_scale

    fitting = FitSettings(
        pairs=dimension_pairs(pair),
        scales=dict(parse_scale(s) for s in scale),
        detect=dict(parse_detect(d) for d in detect),
        folds=folds,
        threshold=threshold,
    )
    config = CalibrateConfig(
        protocol=protocol,
        judges=judge,
        fit=fitting,
        apply=apply,
        bootstrap_resamples=bootstrap,
        seed=seed,
        output=output,
    )
    print_calibrate_output(run_calibration(config, run))
