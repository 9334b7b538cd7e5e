"""The DiQAD part of the report beside its mean quality (`figures_section`): how many dialogues
got each quality level 0/1/2 per chatbot and language."""

from __future__ import annotations

import pandas as pd

from dialbench.judge.protocols.holistic import QUALITY_LEVELS, HolisticProtocol
from dialbench.report.context import ReportContext
from dialbench.report.section import Section, distribution_plots, write_table
from dialbench.report.tables import distribution


def holistic_distribution(frame: pd.DataFrame) -> pd.DataFrame:
    """Levels per judge, chatbot and language; an expected quality (`scoring=expected`, a float)
    counts at its nearest level."""
    by = ["judge", "chatbot", "language"]
    if "quality" in frame:
        frame = frame.assign(quality=frame["quality"].round())
    return distribution(frame, HolisticProtocol.name, "quality", QUALITY_LEVELS, by)


def sections(frame: pd.DataFrame, context: ReportContext) -> list[Section]:
    folder = context.folder
    levels = holistic_distribution(frame)
    if levels.empty:
        return []
    plots = distribution_plots(
        folder, levels, ["chatbot", "language"], QUALITY_LEVELS, "Holistic quality", "holistic"
    )
    return [
        Section(
            key="holistic-levels",
            title="Holistic quality levels 0/1/2 per chatbot and language",
            note="DiQAD: 0 fails the basics, 1 answers but lacks proactivity or "
            "informativeness, 2 meets all six dimensions.",
            plots=plots,
            tables=[write_table(folder, "holistic_distribution", "Quality levels", levels)],
        )
    ]
