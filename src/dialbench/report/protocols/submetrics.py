"""The submetrics part of the report: mean understandability and sensibleness of chatbot turns
per chatbot and language, with their intervals over seeds."""

from __future__ import annotations

import pandas as pd

from dialbench.judge.protocols.submetrics import DIMENSIONS, SubmetricsProtocol
from dialbench.report.chatbot_figures import figure_table, interval_cells, protocol_figures
from dialbench.report.context import ReportContext
from dialbench.report.section import Section, table


def submetric_means(context: ReportContext) -> pd.DataFrame:
    """Per judge, chatbot and language: chatbot turns judged, seeds, and the mean of each
    submetric with its interval."""
    figures = protocol_figures(context, SubmetricsProtocol.name)
    return figure_table(figures, {d: d for d in DIMENSIONS}, count="turns")


def sections(frame: pd.DataFrame, context: ReportContext) -> list[Section]:
    means = submetric_means(context)
    if means.empty:
        return []
    return [
        Section(
            key="submetrics",
            title="Turn-level submetrics per chatbot and language",
            note="Mean understandability (the response alone) and sensibleness (the response in "
            "its context), 1-5, over the chatbot turns judged ok, with their 95% intervals "
            "[low–high] over the seeds the dialogues grew from.",
            tables=[
                table(
                    context.folder,
                    "submetric_means",
                    "Means over chatbot turns",
                    means,
                    interval_cells(means, scores=DIMENSIONS),
                )
            ],
        )
    ]
