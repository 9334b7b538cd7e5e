"""Two versions of a chatbot compared: the baseline's run and the candidate's, or two chatbots of
one run, on the seeds both ran (`differences.py`), as one record to print, store or gate.

Two runs' observations are put into one frame with each chatbot relabelled by its side
(`baseline:python:faq_bot:reply`, `candidate:python:faq_bot:reply`), so the paired analysis
meets the same seed in both runs (a seed unit hashes the same wherever it ran). Judges match by
name: a judge, protocol or dimension that only one run holds gives no row. Every difference is
candidate − baseline.

Where a run holds human labels of a probability sample, the differences are corrected by them
(`figure_basis.py`: `auto`, the default), each run's labels correcting its own figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from pydantic import Field

from dialbench.errors import DialbenchError
from dialbench.figures.differences import design_note
from dialbench.figures.family import ALPHA, Correction
from dialbench.figures.figure_basis import Basis, differences_on
from dialbench.figures.frame import frame_records
from dialbench.figures.labelled_observations import labelled_observations
from dialbench.figures.observations import observations
from dialbench.figures.run_reads import RunReads
from dialbench.schema import Record
from dialbench.store import RunStore

BASELINE = "baseline"
CANDIDATE = "candidate"


class ComparedRuns(Record):
    """The run directories compared (the same one twice for two chatbots of one run)."""

    baseline: str
    candidate: str


class ChatbotPair(Record):
    """Two chatbots as the comparison's rows name them."""

    baseline: str
    candidate: str


class DifferenceRow(Record):
    """One figure of the candidate against the baseline's, with how sure it is."""

    protocol: str
    judge: str
    dimension: str
    better: str
    lowest: float
    highest: float
    language: str
    baseline: str
    candidate: str
    design: str
    units: int
    baseline_value: float
    candidate_value: float
    difference: float
    low: float | None
    high: float | None
    worse_by: float
    p_value: float | None
    p_adjusted: float | None
    holds: bool
    detectable: float | None = Field(
        description="the smallest true difference these seeds find 80% of the time at "
        "alpha 0.05, from this comparison's per-seed spread (paired rows only)"
    )
    note: str


class Comparison(Record):
    runs: ComparedRuns
    pairs: list[ChatbotPair]
    correction: Correction
    alpha: float
    basis: Basis = "raw"
    figures: str = Field(default="", description="what the figures were computed on, in words")
    design: str
    rows: list[DifferenceRow]

    def frame(self) -> pd.DataFrame:
        """The rows as a table, for the gate (`gate.gate`) and for printing."""
        return pd.DataFrame(
            [row.model_dump() for row in self.rows], columns=list(DifferenceRow.model_fields)
        )


@dataclass(frozen=True)
class RunFigures:
    """A run's observations, the same with each labelled item's human value and weight, and
    why none is labelled when none is."""

    observed: pd.DataFrame
    labelled: pd.DataFrame
    why_unlabelled: str


def run_figures(run_dir: Path) -> RunFigures:
    with RunStore.open(run_dir, create=False) as store:
        run = RunReads(store)
        observed = observations(run.frame, run)
        found = labelled_observations(observed, store)
    return RunFigures(observed=observed, labelled=found.frame, why_unlabelled=found.note)


def chatbots_of(observed: pd.DataFrame) -> list[str]:
    return sorted(set(observed["chatbot"]))


def _listed(names: Sequence[str]) -> str:
    return ", ".join(names) or "none"


def pair_runs(
    baseline: Sequence[str], candidate: Sequence[str], chosen: Sequence[str]
) -> list[tuple[str, str]]:
    """(baseline chatbot, candidate chatbot) pairs of two runs: the one chatbot of each, the
    same chatbots by name, or those `chosen` (one name in both runs, or one of each)."""
    found = f"the baseline has {_listed(baseline)}; the candidate has {_listed(candidate)}"
    if len(chosen) > 2:
        raise DialbenchError(f"choose one chatbot, or two (baseline, candidate), not {len(chosen)}")
    if chosen:
        wanted = (chosen[0], chosen[-1])
        if wanted[0] not in baseline or wanted[1] not in candidate:
            missing = " and ".join(dict.fromkeys(wanted))
            raise DialbenchError(f"no chatbot {missing} to compare: {found}")
        return [wanted]
    if len(baseline) == 1 and len(candidate) == 1:
        return [(baseline[0], candidate[0])]
    if baseline and set(baseline) == set(candidate):
        return [(name, name) for name in baseline]
    raise DialbenchError(
        f"which chatbots? {found}: choose with --chatbot NAME (in both) or --chatbot A --chatbot B"
    )


def pair_in_run(chatbots: Sequence[str], chosen: Sequence[str]) -> tuple[str, str]:
    """(baseline, candidate) of one run: the two `chosen` in that order, or its only two."""
    if len(chosen) == 2 and set(chosen) <= set(chatbots):
        return chosen[0], chosen[1]
    if not chosen and len(chatbots) == 2:
        return chatbots[0], chatbots[1]
    raise DialbenchError(
        f"choose two chatbots of the run with --chatbot A --chatbot B (A the baseline); it has "
        f"{_listed(chatbots)}"
    )


def labelled(observed: pd.DataFrame, side: str) -> pd.DataFrame:
    return observed.assign(chatbot=side + ":" + observed["chatbot"].astype(str))


def sided(before: RunFigures, after: RunFigures) -> RunFigures:
    """Two runs' figures in one frame, each chatbot named by its side."""
    return RunFigures(
        observed=pd.concat(
            [labelled(before.observed, BASELINE), labelled(after.observed, CANDIDATE)],
            ignore_index=True,
        ),
        labelled=pd.concat(
            [labelled(before.labelled, BASELINE), labelled(after.labelled, CANDIDATE)],
            ignore_index=True,
        ),
        why_unlabelled="; ".join(
            dict.fromkeys(why for why in (before.why_unlabelled, after.why_unlabelled) if why)
        ),
    )


def _no_judgments(run: str) -> str:
    return f"{run}: no judgments of chatbot dialogues to compare (judge the run first)"


def _nothing_shared(baseline: pd.DataFrame, candidate: pd.DataFrame, runs: ComparedRuns) -> str:
    """Why two runs' observations give no row, in one line."""
    for observed, run in ((baseline, runs.baseline), (candidate, runs.candidate)):
        if observed.empty:
            return _no_judgments(run)
    judges = [sorted(set(observed["judge"])) for observed in (baseline, candidate)]
    if not set(judges[0]) & set(judges[1]):
        return (
            f"no judge in both runs: {runs.baseline} has {_listed(judges[0])}; "
            f"{runs.candidate} has {_listed(judges[1])}"
        )
    return "no protocol and dimension judged by the same judge in both runs"


NAMED = {
    "first": "candidate",
    "second": "baseline",
    "first_value": "candidate_value",
    "second_value": "baseline_value",
}


def _rows(differences: pd.DataFrame) -> list[DifferenceRow]:
    """`chatbot_differences`'s rows, its first (the candidate) and second (the baseline) named."""
    named = differences.rename(columns=NAMED).fillna({"note": ""})
    return [DifferenceRow.model_validate(row) for row in frame_records(named)]


def compare_versions(
    baseline: Path,
    candidate: Path | None = None,
    chatbots: Sequence[str] = (),
    correction: Correction = "holm",
    alpha: float = ALPHA,
    basis: Basis = "auto",
) -> Comparison:
    """The candidate's figures against the baseline's, per protocol, judge, dimension and
    language: two runs (their chatbots paired by `pair_runs`), or, without `candidate`, two
    chatbots of the baseline's run (`pair_in_run`); on `basis` (`figure_basis.py`)."""
    if candidate is None:
        figures = run_figures(baseline)
        runs = ComparedRuns(baseline=str(baseline), candidate=str(baseline))
        if figures.observed.empty:
            raise DialbenchError(_no_judgments(runs.baseline))
        pairs = [pair_in_run(chatbots_of(figures.observed), chatbots)]
        why_empty = "the two chatbots share no protocol, judge and dimension"
    else:
        before, after = run_figures(baseline), run_figures(candidate)
        runs = ComparedRuns(baseline=str(baseline), candidate=str(candidate))
        why_empty = _nothing_shared(before.observed, after.observed, runs)
        if before.observed.empty or after.observed.empty:
            raise DialbenchError(why_empty)
        pairs = [
            (f"{BASELINE}:{first}", f"{CANDIDATE}:{second}")
            for first, second in pair_runs(
                chatbots_of(before.observed), chatbots_of(after.observed), chatbots
            )
        ]
        figures = sided(before, after)
    differences, basis_note = differences_on(
        basis,
        figures.observed,
        figures.labelled,
        figures.why_unlabelled,
        [(new, old) for old, new in pairs],
        correction,
        alpha,
    )
    if differences.empty:
        raise DialbenchError(why_empty)
    return Comparison(
        runs=runs,
        pairs=[ChatbotPair(baseline=old, candidate=new) for old, new in pairs],
        correction=correction,
        alpha=alpha,
        basis=basis,
        figures=basis_note,
        design=f"first = candidate, second = baseline: {design_note(correction, alpha)}",
        rows=_rows(differences),
    )
