"""`calibrate` as one typed call, for the CLI, the pipeline and scripts: fit a calibration on a
run's human labels (cross-validated over dialogues), write it, and store the calibrated
judgments beside the judge's own; or apply a calibration file to another run."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from pydantic import Field

from dialbench.calibrate.answers import JudgeAnswers, judge_answers
from dialbench.calibrate.calibration_file import read_calibration, write_calibration
from dialbench.calibrate.config import CalibrateConfig, Calibration, CellKey
from dialbench.calibrate.fitting import Fitted, agreement_rows, find_cells, fit_cell
from dialbench.calibrate.judgments import calibrated_judgments
from dialbench.errors import DialbenchError
from dialbench.metaeval.rating_matrix import rating_matrices, ratings_frame
from dialbench.ratings import JudgeNames, Placed, human_ratings, placed_judgments
from dialbench.schema import Judgment, Record
from dialbench.store import AddResult, OnConflict, RunStore

CALIBRATION_FILE = "calibration.json"


class CalibrateResult(Record):
    calibration: Calibration
    file: Path = Field(description="the calibration written (fitted) or read (applied)")
    applied: bool = Field(description="True where a saved calibration was applied, not fitted")
    stored: AddResult
    notes: list[str] = Field(default_factory=list)


def _protocol(store: RunStore, wanted: str | None) -> str:
    if wanted is not None:
        return wanted
    found = sorted(str(protocol) for protocol, _ in store.group_counts(Judgment, "protocol"))
    if len(found) == 1:
        return found[0]
    run = store.path.parent
    if not found:
        raise DialbenchError(f"{run} holds no judgments to calibrate (dialbench judge {run})")
    raise DialbenchError(
        f"{run} holds judgments of several protocols ({', '.join(found)}): choose one with "
        "--protocol"
    )


def _judge_answers(store: RunStore, protocol: str, judges: list[str]) -> list[JudgeAnswers]:
    """The judge's own judgments of the protocol (a calibrated one is never calibrated again),
    of the wanted judges: a model spec, or a configuration as metaeval names it."""
    run = store.path.parent
    placed: list[tuple[Judgment, Placed]] = [
        (j, p)
        for j, p in placed_judgments(store, [protocol])
        if j.configuration is None or j.configuration.calibration is None
    ]
    if not placed:
        raise DialbenchError(
            f"{run} holds no judgments of protocol {protocol} to calibrate "
            f"(dialbench judge {run} --protocol {protocol})"
        )
    if judges:
        names = JudgeNames([j for j, _ in placed])
        available = sorted({names(j) for j, _ in placed})
        unknown = [w for w in judges if not any(w in (j.judge_model, names(j)) for j, _ in placed)]
        if unknown:
            raise DialbenchError(
                f"no {protocol} judgments by {', '.join(map(repr, unknown))} in {run}; its "
                f"judges: {', '.join(map(repr, available))}"
            )
        placed = [(j, p) for j, p in placed if j.judge_model in judges or names(j) in judges]
    return judge_answers(placed)


def _fit(
    config: CalibrateConfig, run_dir: Path
) -> tuple[Calibration, list[Fitted], list[JudgeAnswers], list[str]]:
    """The calibration, its fitted cells, the answers they were fitted on, and notes on what
    the labels do not reach."""
    with RunStore.open(run_dir, create=False) as store:
        humans = human_ratings(store)
        if not humans:
            raise DialbenchError(
                f"{run_dir} holds no human labels to calibrate against: import them (dialbench "
                f"import FILE --records annotations --run {run_dir}) or review the judge's "
                f"verdicts in the web app (dialbench serve {run_dir})"
            )
        protocol = _protocol(store, config.protocol)
        answers = _judge_answers(store, protocol, config.judges)
        chatseeds = store.chatseeds()
    notes: list[str] = []
    frame = ratings_frame(humans, None, chatseeds)
    matrices = {
        (p.dimension, p.language): p
        for p in rating_matrices(frame, config.fit.scales, notes, config.fit.detect)
    }
    fitted, not_calibrated = [], []
    for cell in find_cells(answers, matrices, config.fit, notes):
        done = fit_cell(cell, config.fit)
        if isinstance(done, str):
            key = cell.key
            not_calibrated.append(
                f"{key.judge_model} [{key.configuration}] {key.judge_dimension} -> "
                f"{key.dimension} {key.language}: {done}: not calibrated"
            )
        else:
            fitted.append(done)
    if not fitted:
        raise DialbenchError("nothing calibrated: " + "; ".join([*notes, *not_calibrated]))
    calibration = Calibration(
        protocol=protocol,
        settings=config.fit,
        maps=[f.fitted for f in fitted],
        agreement=list(agreement_rows(fitted, matrices, config.bootstrap_resamples, config.seed)),
        not_calibrated=not_calibrated,
    )
    return calibration, fitted, answers, notes


def _judges_missing(calibration: Calibration, answers: list[JudgeAnswers], run: Path) -> list[str]:
    """A note for each calibrated judge configuration the run holds no judgment of; an error
    where it holds none of them."""
    present = {judge.key for judge in answers}
    calibrated = sorted({(m.cell.judge_model, m.cell.configuration) for m in calibration.maps})
    missing = [
        f"{model} [{configuration}]"
        for model, configuration in calibrated
        if (model, configuration, calibration.protocol) not in present
    ]
    if len(missing) == len(calibrated):
        raise DialbenchError(
            f"{run} holds no {calibration.protocol} judgments of the calibrated judges and "
            f"configurations ({', '.join(missing)}): judge it with the same judge, protocol "
            "options and prompts first"
        )
    return [f"{judge}: calibrated, but {run} holds no judgment of it" for judge in missing]


def calibrate(config: CalibrateConfig, run_dir: str | Path) -> CalibrateResult:
    """Fit a calibration (or, with `apply`, read one) and store the run's calibrated
    judgments."""
    run_dir = Path(run_dir)
    out_of_fold: dict[CellKey, pd.Series] = {}
    on_conflict: OnConflict = "replace"  # a labelled item's out-of-fold value is the one kept
    if config.apply is None:
        calibration, fitted, answers, notes = _fit(config, run_dir)
        file = config.output or run_dir / CALIBRATION_FILE
        write_calibration(calibration, file)
        out_of_fold = {f.fitted.cell: f.out_of_fold for f in fitted}
        notes += calibration.not_calibrated
    else:
        file, on_conflict = config.apply, "keep"
        calibration = read_calibration(file)
        with RunStore.open(run_dir, create=False) as store:
            answers = _judge_answers(store, calibration.protocol, config.judges)
        notes = _judges_missing(calibration, answers, run_dir)
    with (
        RunStore.open(run_dir) as store,
        store.invocation("calibrate", config.model_dump(mode="json")) as run,
    ):
        judgments, unmapped = calibrated_judgments(
            answers, calibration.maps, out_of_fold, calibration.digest, run.id
        )
        stored = store.add(judgments, run, on_conflict)
    return CalibrateResult(
        calibration=calibration,
        file=file,
        applied=config.apply is not None,
        stored=stored,
        notes=notes + unmapped,
    )
