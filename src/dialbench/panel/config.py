"""What a judge panel is asked to be: a light record (no pandas), so a pipeline file or the
CLI checks it without loading the statistics."""

from __future__ import annotations

import re

from pydantic import Field, field_validator

from dialbench.schema import PanelMethod, Record

PANEL_PREFIX = "panel:"
METHODS: tuple[PanelMethod, ...] = ("majority", "median", "weighted")


class PanelConfig(Record):
    name: str = Field(description="the panel's judgments are by the judge `panel:NAME`")
    protocol: str | None = Field(
        default=None, description="the members' protocol; default: the run's one"
    )
    judges: list[str] = Field(
        min_length=2,
        description="the members: a model spec, or a judge as `ratings.JudgeNames` names it "
        "(`SPEC [c-…]`, `SPEC (calibrated)`)",
    )
    method: PanelMethod = Field(
        default="median",
        description="majority: the most common value on every dimension; median: labels by "
        "majority, ordinal scores by the median, interval scores by the mean; weighted: the "
        "same, each vote weighted by its member's agreement with the humans",
    )
    max_pairwise_members: int = Field(default=30, ge=2, description="as metaeval's annotators")

    @field_validator("name")
    @classmethod
    def _plain_name(cls, name: str) -> str:
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name):
            raise ValueError(
                f"panel name {name!r}: letters, digits, '.', '_' and '-' only (it names a folder)"
            )
        return name

    @field_validator("judges")
    @classmethod
    def _distinct(cls, judges: list[str]) -> list[str]:
        repeated = sorted({j for j in judges if judges.count(j) > 1})
        if repeated:
            raise ValueError(f"a member is named twice: {', '.join(repeated)}")
        return judges

    @property
    def judge_model(self) -> str:
        return PANEL_PREFIX + self.name
