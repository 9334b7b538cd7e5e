"""What a meta-evaluation is asked to do: light records (no pandas, no scikit-learn), so a
pipeline file can be checked without loading the statistics."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator, model_validator

from dialbench.schema import Record

Scale = Literal["binary", "nominal", "ordinal", "interval"]
SCALES: tuple[Scale, ...] = ("binary", "nominal", "ordinal", "interval")


class ScaleSpec(Record):
    scale: Scale
    order: list[str] = Field(default_factory=list, description="ordinal labels, lowest first")


class DetectSpec(Record):
    """A dimension also read as a detection task, e.g. DBDC3's breakdown: a turn labelled X is a
    breakdown. Judges answering in numbers (1-5 sensibleness) say "positive" by a threshold."""

    positive: list[str] = Field(min_length=1, description="the human labels of the positive class")
    judge_at_most: float | None = Field(
        default=None, description="a judge answering in numbers says positive at or below this"
    )
    judge_at_least: float | None = Field(
        default=None, description="a judge answering in numbers says positive at or above this"
    )

    @model_validator(mode="after")
    def _one_threshold(self) -> DetectSpec:
        if self.judge_at_most is not None and self.judge_at_least is not None:
            raise ValueError("give judge_at_most or judge_at_least, not both")
        return self

    @property
    def thresholded(self) -> bool:
        return self.judge_at_most is not None or self.judge_at_least is not None

    def judge_says_positive(self, score: float) -> bool:
        """Whether a judge's number is on the positive side of the threshold."""
        if self.judge_at_most is not None:
            return score <= self.judge_at_most
        return self.judge_at_least is not None and score >= self.judge_at_least

    def dimension(self, name: str) -> str:
        """The name of the detection view: `breakdown=X`, `breakdown=T+X`."""
        return f"{name}={'+'.join(self.positive)}"


class MetaEvalOptions(Record):
    scales: dict[str, ScaleSpec] = Field(default_factory=dict, description="overrides inference")
    detect: dict[str, DetectSpec] = Field(
        default_factory=dict,
        description="human dimension -> its detection view (F1 per class, with the ceiling)",
    )
    bootstrap_resamples: int = Field(default=1000, ge=100)
    seed: int = 0
    default_language: str | None = Field(
        default=None, description="for items no rating places in a language"
    )
    max_pairwise_annotators: int = Field(
        default=10,
        ge=2,
        description="above this, figures over every annotator pair (Cohen's kappa, McNemar, "
        "the classification ceiling) are skipped",
    )


class MetaevalConfig(Record):
    against: list[Path] = Field(
        default_factory=list, description="human ratings: long format or ABC-Eval JSON"
    )
    predictions: list[Path] = Field(
        default_factory=list, description="judge or metric ratings in the long format"
    )
    protocol: list[str] = Field(
        default_factory=list,
        description="the run's judgments of these protocols (one name or a list), side by side; "
        "default: the run's one protocol",
    )
    include_partial: bool = Field(
        default=False,
        description="also the run's annotations not marked complete (an annotator still at it)",
    )
    pairs: dict[str, str] = Field(
        default_factory=dict, description="judge dimension -> the human dimension it answers"
    )
    options: MetaEvalOptions = Field(default_factory=MetaEvalOptions)
    output: Path | None = Field(default=None, description="default RUN/metaeval, else ./metaeval")

    @field_validator("protocol", mode="before")
    @classmethod
    def _one_or_several(cls, value: object) -> object:
        return [value] if isinstance(value, str) else value
