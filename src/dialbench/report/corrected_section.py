"""The report's figures corrected by human labels: beside each judged chatbot figure (per
protocol, judge, dimension, chatbot and language, and "all"), the figure the human labels of a
probability sample correct it to (`figures/corrected.py`), and the judge's bias on the labelled
items; then the findings whose verdict changes under correction (a difference between chatbots,
or between a chatbot's languages, that holds on one side and not on the other).

With no such labels the section says why (the labels are on a curated benchmark, which is not a
probability sample) rather than correcting anything; with no human labels at all it is left out.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from dialbench.figures.corrected import (
    corrected_differences,
    corrected_intervals,
    language_differences,
)
from dialbench.figures.differences import chatbot_differences
from dialbench.figures.figure_basis import has_labels
from dialbench.figures.intervals import KEYS, chatbot_intervals
from dialbench.judge.protocol_figures import is_rate
from dialbench.report.chatbot_figures import interval_cell
from dialbench.report.context import ReportContext
from dialbench.report.section import Section, write_table
from dialbench.report.tables import all_languages_last
from dialbench.schema import Annotation

CellOf = Callable[..., str]

TITLE = "Figures corrected by human labels"
NOTE = (
    "Each judged figure beside the figure the human labels correct it to: prediction-powered "
    "inference (PPI++, Angelopoulos et al. 2023) weighted by the probability sample's design "
    "(each labelled item stands for 1/π items of its stratum), with a 95% interval over seeds; "
    "λ is the weight the judge's figure gets (0: the labels alone, 1: the judge fully trusted "
    "where it agrees with the humans). Bias = judge − human on the labelled items. A cell with "
    "too few labels shows no corrected figure and says so."
)
CHANGED_NOTE = (
    "Differences whose verdict (holds at the family's level, Holm over every row) is not the "
    "same on the judge's labels (raw) and corrected by the human labels: a difference that holds "
    "only raw was the judge's error; one that holds only corrected was hidden by it."
)


def _bias_cell(bias: float, low: float, high: float, *, rate: bool) -> str:
    """`+12 pts [+4, +20]` for a rate, `+0.30 [+0.10, +0.50]` for a score."""
    if pd.isna(bias):
        return "-"
    if rate:
        return f"{100 * bias:+.0f} pts [{100 * low:+.0f}, {100 * high:+.0f}]"
    return f"{bias:+.2f} [{low:+.2f}, {high:+.2f}]"


def corrected_table(context: ReportContext) -> pd.DataFrame:
    """The raw figures (`chatbot_intervals`) joined with their corrections, per KEYS."""
    raw = chatbot_intervals(context.chatbot_observations)
    corrected = corrected_intervals(context.labelled.frame)
    joined = raw.merge(corrected, on=KEYS, how="inner", suffixes=("", "_corrected"))
    return all_languages_last(joined)


def _cells(
    table: pd.DataFrame, columns: tuple[str, str, str], rate: list[bool], shown: CellOf
) -> list[str]:
    """One cell per row from a figure's three columns (value, low, high)."""
    value, low, high = (table[column] for column in columns)
    return [shown(v, lo, hi, rate=r) for v, lo, hi, r in zip(value, low, high, rate, strict=True)]


def _shown(table: pd.DataFrame, scales: pd.DataFrame) -> pd.DataFrame:
    """The table as a reader sees it: each figure one cell with its interval."""
    rates = {key for key, (low, high) in scales.iterrows() if is_rate(float(low), float(high))}
    rate = [(p, d) in rates for p, d in zip(table["protocol"], table["dimension"], strict=True)]
    return (
        table[["protocol", "judge", "dimension", "chatbot", "language", "items"]]
        .assign(
            labelled=table["labelled"],
            judges_figure=_cells(table, ("value", "low", "high"), rate, interval_cell),
            corrected=_cells(
                table, ("corrected", "corrected_low", "corrected_high"), rate, interval_cell
            ),
            judge_bias=_cells(table, ("bias", "bias_low", "bias_high"), rate, _bias_cell),
            λ=[f"{w:.2f}" if pd.notna(w) else "-" for w in table["judge_weight"]],
            note=table["note_corrected"].fillna(""),
        )
        .rename(columns={"judges_figure": "judge's figure", "judge_bias": "judge bias"})
    )


def changed_findings(context: ReportContext) -> pd.DataFrame:
    """The differences between chatbots and between a chatbot's languages whose verdict is not
    the same raw and corrected, each side's difference, interval and verdict."""
    labelled = context.labelled.frame
    observed = context.chatbot_observations
    between_chatbots = [
        frame.assign(compared="chatbots", chatbot=frame["first"] + " − " + frame["second"])
        for frame in (
            chatbot_differences(observed),
            corrected_differences(labelled),
        )
    ]
    between_languages = [
        frame.assign(compared="languages")
        for frame in (
            language_differences(labelled, corrected=False),
            language_differences(labelled, corrected=True),
        )
    ]
    keys = ["compared", "protocol", "judge", "dimension", "chatbot", "language"]
    sides = ["difference", "low", "high", "holds"]
    found = []
    for raw, corrected in (between_chatbots, between_languages):
        if raw.empty or corrected.empty:
            continue
        both = raw[keys + sides].merge(
            corrected[keys + sides], on=keys, suffixes=("_raw", "_corrected")
        )
        found.append(both[both["holds_raw"].astype(bool) != both["holds_corrected"].astype(bool)])
    if not found:
        return pd.DataFrame(columns=keys)
    return pd.concat(found, ignore_index=True)


def corrected_sections(context: ReportContext) -> list[Section]:
    """The corrected figures and the findings correction changes; the reason where nothing can
    be corrected; nothing where the run holds no human label."""
    labelled = context.labelled
    if context.chatbot_observations.empty or not context.store.count(Annotation):
        return []
    if not has_labels(labelled.frame):
        return [Section(key="corrected", title=TITLE, note=labelled.note)]
    table = corrected_table(context)
    scales = context.chatbot_observations.groupby(["protocol", "dimension"])[
        ["lowest", "highest"]
    ].first()
    tables = [
        write_table(
            context.folder,
            "corrected_figures",
            "The judge's figure, corrected by human labels, and the judge's bias",
            table,
            _shown(table, scales),
        )
    ]
    changed = changed_findings(context)
    if not changed.empty:
        tables.append(
            write_table(
                context.folder,
                "changed_findings",
                "Findings whose verdict changes under correction",
                changed,
            )
        )
    note = f"{NOTE} Here: {labelled.note}."
    changes = (
        f"{len(changed)} finding{'s' * (len(changed) != 1)} change under correction. {CHANGED_NOTE}"
        if not changed.empty
        else "No difference between chatbots or languages changes its verdict under correction."
    )
    return [
        Section(
            key="corrected",
            title=TITLE,
            note=f"{note} {changes}",
            tables=tables,
        )
    ]
