"""The gate's decision on a candidate run against its baseline: a record for machines, one screen
of text for people (`dialbench check`), and an assertion for a project's own tests.

    from dialbench.figures.decision import assert_no_regression

    def test_no_regression():
        assert_no_regression("runs/candidate", baseline="runs/baseline")
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pydantic import Field

from dialbench.errors import DialbenchError
from dialbench.figures.family import CORRECTIONS
from dialbench.figures.frame import frame_records
from dialbench.figures.gate import GateConfig, gate
from dialbench.figures.versions import (
    ComparedRuns,
    Comparison,
    DifferenceRow,
    compare_versions,
)
from dialbench.schema import Record

SHOWN = 12


class GateRow(DifferenceRow):
    margin: float
    regression: bool


class GateDecision(Record):
    runs: ComparedRuns
    passed: bool
    checked: int
    config: GateConfig
    figures: str = Field(default="", description="what the figures were computed on, in words")
    regressions: list[GateRow]
    improvements: list[GateRow]

    def headline(self) -> str:
        family = (
            f"{self.checked} figures checked, {CORRECTIONS[self.config.correction]} over "
            f"them at alpha {self.config.alpha}"
        )
        better = f"{len(self.improvements)} better"
        if self.passed:
            return f"PASS: no regression ({family}; {better})"
        count = len(self.regressions)
        worse = f"{count} figure{'s' if count > 1 else ''} worse beyond their margin"
        return f"REGRESSION: {worse} ({family}; {better})"

    def text(self) -> str:
        """One screen: the headline, what is compared, every regression and improvement that
        holds (the first SHOWN of each)."""
        several_judges = len({row.judge for row in self.regressions + self.improvements}) > 1
        several_pairs = len({row.candidate for row in self.regressions + self.improvements}) > 1
        lines = [
            self.headline(),
            f"candidate {self.runs.candidate} against baseline {self.runs.baseline}; "
            "difference = candidate − baseline, 95% interval",
            *([self.figures] if self.figures else []),
        ]
        for title, rows in (
            ("regressions", self.regressions),
            ("improvements that hold", self.improvements),
        ):
            if rows:
                lines.append(f"{title}:")
                lines += [_line(row, several_judges, several_pairs) for row in rows[:SHOWN]]
                if len(rows) > SHOWN:
                    lines.append(f"  ({len(rows) - SHOWN} more)")
        return "\n".join(lines)


def _line(row: GateRow, judge: bool, chatbot: bool) -> str:
    interval = "" if row.low is None else f" [{row.low:+.3f}, {row.high:+.3f}]"
    where = "".join(
        [
            f", judge {row.judge}" if judge else "",
            f", {row.candidate} vs {row.baseline}" if chatbot else "",
        ]
    )
    return (
        f"  {row.language:<5} {row.dimension}{where}: {row.baseline_value:.3f} -> "
        f"{row.candidate_value:.3f}, {row.difference:+.3f}{interval}, "
        f"p adjusted {row.p_adjusted:.3g}, margin {row.margin:g}"
    )


def decide(comparison: Comparison, config: GateConfig) -> GateDecision:
    """`gate.gate` over the comparison's rows; an error when the config checks none of them."""
    checked = gate(comparison.frame(), config)
    if checked.empty:
        found = sorted({f"{row.protocol} {row.dimension}" for row in comparison.rows})
        raise DialbenchError(f"the gate checks none of the figures compared: {', '.join(found)}")
    rows = [GateRow.model_validate(row) for row in frame_records(checked.drop(columns="rule"))]
    regressions = [row for row in rows if row.regression]
    return GateDecision(
        runs=comparison.runs,
        passed=not regressions,
        checked=len(rows),
        config=config,
        figures=comparison.figures,
        regressions=regressions,
        improvements=[row for row in rows if row.holds and row.worse_by < 0],
    )


def check_versions(
    candidate: str | Path,
    baseline: str | Path,
    config: GateConfig | None = None,
    chatbots: Sequence[str] = (),
) -> GateDecision:
    """The gate's decision on two runs (`versions.compare_versions` pairs their chatbots)."""
    config = config or GateConfig()
    comparison = compare_versions(
        Path(baseline), Path(candidate), chatbots, config.correction, config.alpha, config.figures
    )
    return decide(comparison, config)


def assert_no_regression(
    run: str | Path,
    baseline: str | Path,
    config: GateConfig | None = None,
    chatbots: Sequence[str] = (),
) -> None:
    """Fail (AssertionError, with the decision's screen) when `run` regresses against
    `baseline`; the default config checks every figure with a margin of 3% of its scale."""
    found = check_versions(run, baseline, config, chatbots)
    if not found.passed:
        raise AssertionError(found.text())
