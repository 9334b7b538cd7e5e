"""The report's section of a protocol's declared chatbot figures (`figures_section`,
`judge/protocol_figures.py`): a row per judge, chatbot and language (all languages last), what
was judged, the seeds, each figure with its 95% interval, and the note of a row with too few
seeds. Every protocol that declares one gets it; its own sections (`report/protocols/`) add only
what is special to it."""

from __future__ import annotations

import pandas as pd

from dialbench.judge.protocol import JudgeProtocol
from dialbench.judge.protocol_figures import is_rate
from dialbench.report.chatbot_figures import figure_table, interval_cells, protocol_figures
from dialbench.report.context import ReportContext
from dialbench.report.section import Section, write_table

INTERVALS = "Each figure has its 95% interval [low–high] over the seeds the dialogues grew from."


def figures_table(context: ReportContext, protocol: type[JudgeProtocol]) -> pd.DataFrame:
    """Per judge, chatbot and language: the items judged, seeds, and each of the protocol's
    figures with its interval, in the order the protocol declares them."""
    declared = protocol.figures_section
    figures = protocol_figures(context, protocol.name)
    dimensions = dict.fromkeys(figures["dimension"])
    count = declared.count if declared else "items"
    return figure_table(figures, {dimension: dimension for dimension in dimensions}, count)


def rates_of(observations: pd.DataFrame) -> list[str]:
    """The dimensions whose figures are rates (a scale from 0 to 1): shown as percentages."""
    scales = observations.groupby("dimension", sort=False)[["lowest", "highest"]].first()
    return [str(d) for d, (low, high) in scales.iterrows() if is_rate(float(low), float(high))]


def figures_sections(context: ReportContext, protocol: type[JudgeProtocol]) -> list[Section]:
    """The section the protocol declares, if it declares one and has figures."""
    declared = protocol.figures_section
    if declared is None or protocol.name not in context.observations:
        return []
    means = figures_table(context, protocol)
    if means.empty:
        return []
    rates = rates_of(context.observations[protocol.name])
    figures = [str(column) for column in means if f"{column}_low" in means]
    scores = [figure for figure in figures if figure not in rates]
    return [
        Section(
            key=protocol.name,
            title=declared.title,
            note=f"{declared.note} {INTERVALS}",
            tables=[
                write_table(
                    context.folder,
                    declared.table,
                    declared.caption,
                    means,
                    interval_cells(means, rates=rates, scores=scores),
                )
            ],
        )
    ]
