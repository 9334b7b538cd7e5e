"""What a meta-evaluation is asked to do: light records (no pandas, no scikit-learn), so a
pipeline file can be checked without loading the statistics."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from dialbench.schema import Record

Scale = Literal["binary", "nominal", "ordinal", "interval"]
SCALES: tuple[Scale, ...] = ("binary", "nominal", "ordinal", "interval")


class ScaleSpec(Record):
    scale: Scale
    order: list[str] = Field(default_factory=list, description="ordinal labels, lowest first")


class MetaEvalOptions(Record):
    scales: dict[str, ScaleSpec] = Field(default_factory=dict, description="overrides inference")
    bootstrap_resamples: int = Field(default=1000, ge=100)
    seed: int = 0
    default_language: str | None = Field(
        default=None, description="for items no rating places in a language"
    )
    max_pairwise_annotators: int = Field(
        default=10, ge=2, description="above this, pairwise figures (kappa, ceiling) are skipped"
    )


class MetaevalConfig(Record):
    against: list[Path] = Field(
        default_factory=list, description="human ratings: long format or ABC-Eval JSON"
    )
    predictions: list[Path] = Field(
        default_factory=list, description="judge or metric ratings in the long format"
    )
    protocol: str | None = Field(default=None, description="the run's judgments of this protocol")
    pairs: dict[str, str] = Field(
        default_factory=dict, description="judge dimension -> the human dimension it answers"
    )
    options: MetaEvalOptions = Field(default_factory=MetaEvalOptions)
    output: Path | None = Field(default=None, description="default RUN/metaeval, else ./metaeval")
