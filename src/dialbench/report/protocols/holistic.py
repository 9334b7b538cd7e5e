"""The DiQAD part of the report: quality levels 0/1/2 per chatbot and language, and the mean
quality with its interval over seeds."""

from __future__ import annotations

import pandas as pd

from dialbench.judge.protocols.holistic import QUALITY_LEVELS, HolisticProtocol
from dialbench.report.chatbot_figures import figure_table, interval_cells, protocol_figures
from dialbench.report.context import ReportContext
from dialbench.report.section import Section, distribution_plots, table
from dialbench.report.tables import distribution


def holistic_distribution(frame: pd.DataFrame) -> pd.DataFrame:
    """Levels per judge, chatbot and language; an expected quality (`scoring=expected`, a float)
    counts at its nearest level."""
    by = ["judge", "chatbot", "language"]
    if "quality" in frame:
        frame = frame.assign(quality=frame["quality"].round())
    return distribution(frame, HolisticProtocol.name, "quality", QUALITY_LEVELS, by)


def mean_quality(context: ReportContext) -> pd.DataFrame:
    """Per judge, chatbot and language: dialogues judged, seeds, and the mean quality 0-2 (an
    item's mean over its samples) with its interval."""
    figures = protocol_figures(context, HolisticProtocol.name)
    return figure_table(figures, {"quality": "quality"})


def sections(frame: pd.DataFrame, context: ReportContext) -> list[Section]:
    folder = context.folder
    levels = holistic_distribution(frame)
    if levels.empty:
        return []
    means = mean_quality(context)
    figures = distribution_plots(
        folder, levels, ["chatbot", "language"], QUALITY_LEVELS, "Holistic quality", "holistic"
    )
    return [
        Section(
            key="holistic",
            title="Holistic quality 0/1/2 per chatbot and language",
            note="DiQAD: 0 fails the basics, 1 answers but lacks proactivity or "
            "informativeness, 2 meets all six dimensions. The mean quality has its 95% interval "
            "[low–high] over the seeds the dialogues grew from.",
            plots=figures,
            tables=[
                table(folder, "holistic_distribution", "Quality levels", levels),
                table(
                    folder,
                    "holistic_means",
                    "Mean quality (0-2)",
                    means,
                    interval_cells(means, scores=["quality"]),
                ),
            ],
        )
    ]
