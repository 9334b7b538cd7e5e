"""How well each packaged local model judges, as measured: sensibleness against DBDC3's humans,
per language and scoring, so `dialbench models` shows a weak judge for what it is, and on which
domain (DBDC3's chit-chat), so a figure is not read as holding on every other.

The figures live in `judge_figures.yaml` beside this module, written by the benchmark that
measures them (`benchmarks/expected_scoring.py --write`), never by hand.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from dialbench.domains import Domain
from dialbench.schema import Record
from dialbench.yaml_records import load_yaml_record, write_yaml_record

PACKAGE = __name__.rsplit(".", 1)[0]
FIGURES_FILE = "judge_figures.yaml"
COMMAND = ".venv/bin/python benchmarks/expected_scoring.py --write"
MEASURED = (
    "sensibleness (submetrics, 1-5) of every chatbot turn of a fixed subset of DBDC3's "
    "evaluation dialogues, against the mean of the 30 humans' breakdown labels (X < T < O); "
    "95% intervals from a bootstrap over dialogues"
)


class JudgeFigure(Record):
    """One judge's agreement with the humans in one language (or `all`) under one scoring."""

    language: str
    scoring: Literal["argmax", "expected"]
    n_items: int = Field(ge=0)
    n_dialogues: int = Field(ge=0)
    pearson: float | None
    pearson_ci: tuple[float | None, float | None]
    spearman: float | None
    spearman_ci: tuple[float | None, float | None]
    unscored: float = Field(ge=0.0, le=1.0, description="share of turns the judge left unscored")

    def pearson_shown(self) -> str:
        """`0.31 [0.10, 0.50]`, the interval where it has both ends; `-` where r is undefined."""
        if self.pearson is None:
            return "-"
        low, high = self.pearson_ci
        interval = f" [{low:.2f}, {high:.2f}]" if low is not None and high is not None else ""
        return f"{self.pearson:.2f}{interval}"


class MeasuredJudges(Record):
    measured: str = MEASURED
    domain: Domain = Field(description="the domain of the dialogues every figure was measured on")
    models: dict[str, list[JudgeFigure]] = Field(
        default_factory=dict, description="model spec -> its figures"
    )
    sha256: str = ""


def measured_judges() -> MeasuredJudges:
    return load_yaml_record(PACKAGE, FIGURES_FILE, MeasuredJudges)


def write_figures(figures: MeasuredJudges, *, write: bool) -> str:
    """The figures file's text, and written into the package when `write`."""
    return write_yaml_record(PACKAGE, FIGURES_FILE, figures, COMMAND, write=write)
