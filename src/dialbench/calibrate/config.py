"""What a calibration is asked to do, and the calibration itself as it is written to its file:
light records (no pandas, no scikit-learn), so a pipeline file is checked, and a calibration
applied, without loading the statistics."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Annotated, Literal

from pydantic import ConfigDict, Field, model_validator

from dialbench.hashing import content_hash
from dialbench.metaeval.config import DetectSpec, ScaleSpec
from dialbench.schema import Record

ThresholdRule = Literal["f1", "base-rate"]
THRESHOLD_RULES: tuple[ThresholdRule, ...] = ("f1", "base-rate")


class FitSettings(Record):
    """How the maps are fitted: which human dimension each judge dimension answers and on what
    scale, as metaeval's `--pair`, `--scale` and `--detect` say it, the folds, and the rule
    that places a binary label's threshold. The calibration records them."""

    pairs: dict[str, str] = Field(
        default_factory=dict, description="judge dimension -> the human dimension it answers"
    )
    scales: dict[str, ScaleSpec] = Field(default_factory=dict, description="overrides inference")
    detect: dict[str, DetectSpec] = Field(
        default_factory=dict,
        description="human dimension -> its detection view, calibrated by a threshold",
    )
    folds: int = Field(default=5, ge=2, description="cross-validation folds over dialogues")
    threshold: ThresholdRule = Field(
        default="f1",
        description="f1: the threshold that maximises F1 of the positive class; base-rate: the "
        "one that says positive as often as the humans do",
    )


class CalibrateConfig(Record):
    protocol: str | None = Field(
        default=None, description="the judgments of this protocol; default: the run's one"
    )
    judges: list[str] = Field(
        default_factory=list,
        description="only these judges: a model spec, or `SPEC [c-…]` as metaeval names a "
        "configuration; default every judge of the protocol",
    )
    fit: FitSettings = Field(default_factory=FitSettings)
    apply: Path | None = Field(
        default=None, description="a calibration file to apply, fitting nothing"
    )
    bootstrap_resamples: int = Field(default=1000, ge=100)
    seed: int = 0
    output: Path | None = Field(
        default=None, description="where the calibration is written; default RUN/calibration.json"
    )

    @model_validator(mode="after")
    def _fit_or_apply(self) -> CalibrateConfig:
        if self.apply is not None and self.fit != FitSettings():
            raise ValueError(
                "a calibration file is applied with the settings it was fitted with: give "
                "--apply, or the fitting options (--pair, --scale, --detect, --folds, "
                "--threshold), not both"
            )
        return self


class IsotonicMap(Record):
    """A monotone, piecewise-linear map from the judge's value to the mean human value (on the
    human dimension's scale: an ordinal label's position), clipped at both ends."""

    kind: Literal["isotonic"] = "isotonic"
    judge_values: list[float] = Field(min_length=1, description="ascending")
    human_values: list[float] = Field(min_length=1)
    increasing: bool

    @model_validator(mode="after")
    def _aligned(self) -> IsotonicMap:
        if len(self.judge_values) != len(self.human_values):
            raise ValueError("judge_values and human_values differ in length")
        if self.judge_values != sorted(self.judge_values):
            raise ValueError("judge_values must be ascending")
        return self


class ThresholdMap(Record):
    """A decision on the judge's value (its share of positive samples, or its score): positive
    at or below the threshold (`most`) or at or above it (`least`)."""

    kind: Literal["threshold"] = "threshold"
    threshold: float
    positive_at: Literal["most", "least"]
    rule: ThresholdRule


CalibrationMap = Annotated[IsotonicMap | ThresholdMap, Field(discriminator="kind")]


class CellKey(Record):
    """Whose answers a map is for: one judge under one configuration, one protocol, one of its
    dimensions read as one human dimension (or detection view), in one language."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    judge_model: str
    configuration: str = Field(description="the fingerprint of the judge's configuration")
    protocol: str
    judge_dimension: str
    dimension: str = Field(description="the human dimension, or its detection view")
    language: str


class FittedMap(Record):
    cell: CellKey
    map: CalibrationMap
    n_items: int = Field(ge=1, description="labelled items it was fitted on")
    n_dialogues: int = Field(ge=1)


class Figure(Record):
    value: float | None = None
    low: float | None = None
    high: float | None = None


class CalibratedAgreementRow(Record):
    """Raw and calibrated answers against the humans on the same labelled items, the calibrated
    ones out of fold (fitted without the item's dialogue): Pearson with the mean human value
    (isotonic), or F1 of the positive class against each annotator (threshold), each with its
    95% interval over dialogues; `gain` is calibrated minus raw on the same resamples."""

    judge_model: str
    configuration: str
    judge_dimension: str
    dimension: str
    language: str = Field(description="a language, or `all` (every language's items pooled)")
    figure: Literal["pearson", "f1"]
    raw: Figure
    calibrated: Figure
    gain: Figure
    raw_error: float | None = Field(
        default=None, description="root mean squared distance to the mean human value (isotonic)"
    )
    calibrated_error: float | None = None
    n_items: int
    n_dialogues: int
    note: str | None = None


class Calibration(Record):
    """What `dialbench calibrate` writes: the settings, the fitted maps (each fitted on every
    labelled item of its cell) and the cross-validated agreement. Its sha256 (`digest`) is the
    `calibration` of every judgment it produces."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    protocol: str
    settings: FitSettings
    maps: list[FittedMap]
    agreement: list[CalibratedAgreementRow] = Field(default_factory=list)
    not_calibrated: list[str] = Field(
        default_factory=list, description="the cells left out, one line each, saying why"
    )

    @functools.cached_property
    def digest(self) -> str:
        """What a calibrated judgment's configuration names: the sha256 of the canonical JSON
        of everything but the agreement figures, which depend on the bootstrap's resamples and
        seed and on no calibrated value, so resampling differently keeps the same judgments."""
        return content_hash(self.model_dump(mode="json", exclude={"agreement"}))
