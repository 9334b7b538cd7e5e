"""The regression gate: is a candidate significantly worse than its baseline anywhere it is
checked, by more than the margin allowed there?

The candidate's differences from the baseline (`differences.py`, first = candidate, second =
baseline) are matched against the rules; each row takes the first rule that matches its
protocol, dimension and language. A row regresses when it is worse by more than its rule's
margin and the difference holds after correction over every checked row: one family, so the
chance of any false alarm when nothing changed stays at `alpha`.
"""

from __future__ import annotations

from fnmatch import fnmatchcase

import pandas as pd
from pydantic import Field

from dialbench.figures.family import ALPHA, Correction, correct
from dialbench.figures.figure_basis import Basis
from dialbench.schema import Record


class GateScope(Record):
    """Which rows: shell patterns (`issues.*`, `overall`; language `all` is the languages
    together)."""

    protocols: list[str] = Field(default_factory=lambda: ["*"])
    dimensions: list[str] = Field(default_factory=lambda: ["*"])
    languages: list[str] = Field(default_factory=lambda: ["*"])

    def matches(self, protocol: str, dimension: str, language: str) -> bool:
        return (
            any(fnmatchcase(protocol, p) for p in self.protocols)
            and any(fnmatchcase(dimension, d) for d in self.dimensions)
            and any(fnmatchcase(language, lang) for lang in self.languages)
        )


SCALE_MARGIN = 0.03


class GateRule(GateScope):
    """Where a rule applies and how much worse it lets a figure be."""

    margin: float | None = Field(
        default=None,
        ge=0,
        description="worse by more than this, in the figure's own units (0.03: 3 points of a "
        "rate; 0.12 on a 1-5 score); none: 3% of the figure's scale, the same tolerance "
        "everywhere (3 points of a rate, 0.12 on a 1-5 score, 0.06 on a 0-2 one)",
    )

    def margin_on(self, lowest: float, highest: float) -> float:
        return self.margin if self.margin is not None else SCALE_MARGIN * (highest - lowest)


class GateConfig(Record):
    """A thresholds file (`dialbench check --thresholds`) holds these fields; the first rule that
    matches a row in scope is its rule, and a row no rule matches is not checked."""

    alpha: float = Field(default=ALPHA, gt=0, lt=1)
    correction: Correction = "holm"
    figures: Basis = Field(
        default="auto",
        description="what the figures are computed on (figures/figure_basis.py): auto corrects "
        "by a probability sample's human labels where there are enough",
    )
    scope: GateScope = Field(
        default_factory=GateScope, description="only these rows are checked (default: all)"
    )
    rules: list[GateRule] = Field(default_factory=lambda: [GateRule()], min_length=1)

    def rule_for(self, protocol: str, dimension: str, language: str) -> int | None:
        """The index of the first rule that matches, or None: the row is not checked."""
        if not self.scope.matches(protocol, dimension, language):
            return None
        for index, rule in enumerate(self.rules):
            if rule.matches(protocol, dimension, language):
                return index
        return None


def gate(differences: pd.DataFrame, config: GateConfig) -> pd.DataFrame:
    """The checked rows of `differences` (candidate − baseline) with their rule, margin, their
    p-values corrected over the checked rows, and `regression`."""
    rules = pd.Series(
        [
            config.rule_for(str(protocol), str(dimension), str(language))
            for protocol, dimension, language in zip(
                differences["protocol"],
                differences["dimension"],
                differences["language"],
                strict=True,
            )
        ],
        index=differences.index,
        dtype="Int64",
    )
    checked = differences.assign(rule=rules).dropna(subset="rule")
    if checked.empty:
        return checked.assign(margin=[], regression=[])
    checked = checked.assign(
        rule=checked["rule"].astype(int),
        margin=[
            config.rules[int(index)].margin_on(lowest, highest)
            for index, lowest, highest in zip(
                checked["rule"], checked["lowest"], checked["highest"], strict=True
            )
        ],
    )
    checked = correct(checked, config.correction, config.alpha)
    regression = checked["holds"] & (checked["worse_by"] > checked["margin"])
    return checked.assign(regression=regression).reset_index(drop=True)
