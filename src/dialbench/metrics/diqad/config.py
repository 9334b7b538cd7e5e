"""What `dialbench metric diqad train` and the pipeline's `diqad` stage are asked to do: a light
record (no scikit-learn), so a pipeline file is checked without loading the classifiers."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator, Field, ValidationInfo, field_validator

from dialbench.metrics.diqad import DIQAD_CLASSIFIERS
from dialbench.schema import Record

DEFAULT_CLASSIFIERS = ("bayes", "lr", "gb")
"""The classical baselines; `encoder` runs the packaged sentence encoder, which takes longer."""
METRIC_NAME = r"^[A-Za-z0-9_.-]+$"


def _default_classifiers() -> list[str]:
    return list(DEFAULT_CLASSIFIERS)


class DiqadTrainConfig(Record):
    """Where the labels come from, what a domain is, the classifiers to compare, and where to
    keep the one saved; the data itself is the call's (a run or a dialogue file)."""

    label: str = Field(default="quality", min_length=1, description="the 0/1/2 label's name")
    protocol: str | None = Field(
        default=None,
        description="labels from this judge protocol's judgments (default: dialogue annotations)",
    )
    domain: str = Field(
        default="source", description="what a domain is: 'source' or a metadata key"
    )
    classifiers: list[Annotated[str, AfterValidator(DIQAD_CLASSIFIERS.known_name)]] = Field(
        default_factory=_default_classifiers, min_length=1
    )
    holdout: float = Field(
        default=0.2, ge=0.01, le=0.99, description="share of dialogues held out, by id hash"
    )
    seed: int = 0
    save: Path | None = Field(default=None, description="keep the one classifier in this folder")
    metric_name: str = Field(
        default="diqad",
        pattern=METRIC_NAME,
        description="the saved classifier's protocol is metric:NAME",
    )

    @field_validator("save")
    @classmethod
    def _one_to_save(cls, save: Path | None, info: ValidationInfo) -> Path | None:
        classifiers = info.data.get("classifiers")
        if save is not None and classifiers is not None and len(classifiers) != 1:
            raise ValueError("keeps one model: give exactly one classifier")
        return save
