"""The cells a run's labels calibrate, each one's map fitted out of fold and on every labelled
item, and the agreement of raw and calibrated answers with the humans.

A cell is one judge dimension read as one human dimension in one language, as metaeval reads it
(`--pair`, `--scale`, `--detect`, through its matrices): where the humans' values are ordered
(ordinal labels, scores) the map is isotonic onto their mean; where they are binary (an issue
ticked, a detection view such as `breakdown=X`) it is a threshold on the judge's value."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from dialbench.calibrate.agreement import Compared, detection_agreement, numeric_agreement
from dialbench.calibrate.answers import JudgeAnswers
from dialbench.calibrate.config import (
    CalibratedAgreementRow,
    CalibrationMap,
    CellKey,
    FitSettings,
    FittedMap,
    IsotonicMap,
)
from dialbench.calibrate.folds import out_of_fold
from dialbench.calibrate.isotonic import apply_isotonic, fit_isotonic
from dialbench.calibrate.thresholds import Side, apply_threshold, fit_threshold
from dialbench.metaeval.config import DetectSpec
from dialbench.metaeval.rating_matrix import RatingMatrix
from dialbench.schema import ALL_LANGUAGES

Matrices = Mapping[tuple[str, str], RatingMatrix]  # (dimension, language) -> the humans' labels


@dataclass(frozen=True)
class Cell:
    key: CellKey
    answers: JudgeAnswers
    matrix: RatingMatrix
    kind: Literal["isotonic", "threshold"]
    detect: DetectSpec | None = None  # the view's spec, for a detection view's cell


@dataclass(frozen=True)
class Fitted:
    """A cell's final map, its out-of-fold values on the labelled items, and the judge's own
    answers there (its value; for a threshold, its decision, or None where it has none)."""

    cell: Cell
    fitted: FittedMap
    out_of_fold: pd.Series
    raw: pd.Series | None


def apply_map(fitted: CalibrationMap, values: np.ndarray) -> np.ndarray:
    if isinstance(fitted, IsotonicMap):
        return apply_isotonic(fitted, values)
    return apply_threshold(fitted, values)


def _views(dimension: str, settings: FitSettings) -> list[tuple[str, DetectSpec | None]]:
    """The human dimension itself, and its detection view where `--detect` asks for one."""
    view = settings.detect.get(dimension)
    return [(dimension, None), *([(view.dimension(dimension), view)] if view else [])]


def _kind(matrix: RatingMatrix) -> Literal["isotonic", "threshold"] | None:
    if matrix.spec.scale in ("ordinal", "interval"):
        return "isotonic"
    return "threshold" if matrix.spec.scale == "binary" else None


def find_cells(
    answers: list[JudgeAnswers], matrices: Matrices, settings: FitSettings, notes: list[str]
) -> list[Cell]:
    """Every cell the labels reach in a language the judge judged; a note for each judge
    dimension they cannot calibrate."""
    found = []
    for judge in answers:
        judged = set(judge.languages.values())
        unmatched = []
        for judge_dimension in sorted(judge.values.keys() | judge.in_labels):
            human = settings.pairs.get(judge_dimension, judge_dimension)
            if (human, ALL_LANGUAGES) not in matrices:
                unmatched.append(judge_dimension)
                continue
            where = f"{judge.judge_model} [{judge.configuration}] {judge_dimension}"
            matched = [
                (view, detect, matrix)
                for view, detect in _views(human, settings)
                for (dimension, language), matrix in matrices.items()
                if dimension == view and language in judged
            ]
            if not matched:
                notes.append(f"{where}: no human labels of {human} in a language it judged")
                continue
            if judge_dimension in judge.in_labels:
                notes.append(f"{where}: the judge answers in labels, not numbers: not calibrated")
                continue
            for view, detect, matrix in matched:
                kind = _kind(matrix)
                if kind is None:
                    notes.append(
                        f"{where} -> {view} {matrix.language}: the humans' labels have no order "
                        f"(--scale {view}=ordinal:LOW,...,HIGH, or --detect {view}=LABEL): "
                        "not calibrated"
                    )
                    continue
                key = CellKey(
                    judge_model=judge.judge_model,
                    configuration=judge.configuration,
                    protocol=judge.protocol,
                    judge_dimension=judge_dimension,
                    dimension=view,
                    language=matrix.language,
                )
                found.append(Cell(key, judge, matrix, kind, detect))
        if unmatched:
            notes.append(
                f"{judge.judge_model} [{judge.configuration}]: no human labels of "
                f"{', '.join(unmatched)} (--pair HUMAN=JUDGE names the human dimension one answers)"
            )
    return found


def _labelled(cell: Cell) -> pd.Index:
    values = cell.answers.values[cell.key.judge_dimension].dropna()
    humans = cell.matrix.humans
    rated = humans.index[humans.notna().any(axis=1).to_numpy()]
    return rated.intersection(values.index).sort_values()


def _side(detect: DetectSpec | None) -> Side | None:
    if detect is None or not detect.thresholded:
        return None
    return "most" if detect.judge_at_most is not None else "least"


def _raw(cell: Cell, values: pd.Series) -> pd.Series | None:
    """The judge's own answer: its value, or for a threshold its own decision where it makes
    one (a `--detect` threshold on its numbers, or the majority of its boolean samples)."""
    if cell.kind == "isotonic":
        return values
    if cell.detect is not None and cell.detect.thresholded:
        return values.map(cell.detect.judge_says_positive).astype(float)
    if cell.key.judge_dimension in cell.answers.binary:
        return (values >= 0.5).astype(float)
    return None


def fit_cell(cell: Cell, settings: FitSettings) -> Fitted | str:
    """The cell fitted, or why it cannot be (too few labelled items or dialogues)."""
    items = _labelled(cell)
    values = cell.answers.values[cell.key.judge_dimension].loc[items]
    x = values.to_numpy(float)
    y = cell.matrix.humans.loc[items].mean(axis=1).to_numpy(float)
    clusters = [str(c) for c in cell.matrix.clusters.loc[items]]
    side = _side(cell.detect)

    def fit(x: np.ndarray, y: np.ndarray) -> CalibrationMap | str:
        if cell.kind == "isotonic":
            return fit_isotonic(x, y)
        return fit_threshold(x, y, settings.threshold, side)

    def fit_predict(x: np.ndarray, y: np.ndarray, held_out: np.ndarray) -> np.ndarray | str:
        fitted = fit(x, y)
        return fitted if isinstance(fitted, str) else apply_map(fitted, held_out)

    held_out = out_of_fold(clusters, x, y, settings.folds, fit_predict)
    if isinstance(held_out, str):
        return held_out
    final = fit(x, y)
    if isinstance(final, str):
        return final
    fitted = FittedMap(cell=cell.key, map=final, n_items=len(items), n_dialogues=len(set(clusters)))
    return Fitted(cell, fitted, pd.Series(held_out, index=items), _raw(cell, values))


def _compare(
    parts: list[Fitted], matrix: RatingMatrix, resamples: int, seed: int
) -> tuple[Compared, int]:
    """Raw against out-of-fold calibrated on the parts' items, against `matrix`'s humans."""
    calibrated = pd.concat([p.out_of_fold for p in parts])
    items = calibrated.index
    humans = matrix.humans.loc[items]
    clusters = matrix.clusters.loc[items]
    raws = [p.raw for p in parts]
    raw = None if any(r is None for r in raws) else pd.concat(raws).loc[items].to_numpy(float)
    if parts[0].cell.kind == "isotonic":
        assert raw is not None  # an isotonic cell's raw answer is its value
        compared = numeric_agreement(
            raw, calibrated.to_numpy(float), humans.mean(axis=1).to_numpy(float), clusters,
            resamples, seed,
        )  # fmt: skip
    else:
        compared = detection_agreement(
            raw, calibrated.to_numpy(float), humans, clusters, resamples, seed
        )
    return compared, len(items)


def agreement_rows(
    fitted: list[Fitted], matrices: Matrices, resamples: int, seed: int
) -> Iterator[CalibratedAgreementRow]:
    """Per cell, then for each judge dimension and human dimension its languages pooled."""
    groups: dict[tuple[str, str, str, str], list[Fitted]] = {}
    for part in fitted:
        key = part.cell.key
        groups.setdefault(
            (key.judge_model, key.configuration, key.judge_dimension, key.dimension), []
        ).append(part)
    for (model, configuration, judge_dimension, dimension), parts in sorted(groups.items()):
        every = [(p.cell.key.language, [p], p.cell.matrix) for p in parts]
        if len(parts) > 1:
            every.append((ALL_LANGUAGES, parts, matrices[(dimension, ALL_LANGUAGES)]))
        for language, members, matrix in every:
            compared, n_items = _compare(members, matrix, resamples, seed)
            yield CalibratedAgreementRow(
                judge_model=model,
                configuration=configuration,
                judge_dimension=judge_dimension,
                dimension=dimension,
                language=language,
                figure="pearson" if parts[0].cell.kind == "isotonic" else "f1",
                raw=compared.raw,
                calibrated=compared.calibrated,
                gain=compared.gain,
                raw_error=compared.raw_error,
                calibrated_error=compared.calibrated_error,
                n_items=n_items,
                n_dialogues=compared.n_dialogues,
                note=compared.note,
            )
