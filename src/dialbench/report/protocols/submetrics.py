"""The submetrics part of the report: mean understandability and sensibleness of chatbot turns
per chatbot and language."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from dialbench.figures.frame import ok, per_item, with_all_languages
from dialbench.judge.protocols.submetrics import DIMENSIONS, SubmetricsProtocol
from dialbench.report.section import Section, table
from dialbench.report.tables import all_languages_last
from dialbench.store import RunStore


def submetric_means(frame: pd.DataFrame) -> pd.DataFrame:
    """Per judge, chatbot and language: chatbot turns judged and the mean of each submetric."""
    scored = ok(frame, SubmetricsProtocol.name)
    dimensions = [d for d in DIMENSIONS if d in scored]
    if scored.empty or not dimensions:
        return pd.DataFrame()
    items = with_all_languages(per_item(scored, dimensions))
    means = items.groupby(["judge", "chatbot", "language"]).agg(
        turns=("item", "size"), **{d: (d, "mean") for d in dimensions}
    )
    return all_languages_last(means.reset_index())


def sections(frame: pd.DataFrame, folder: Path, store: RunStore) -> list[Section]:
    means = submetric_means(frame)
    if means.empty:
        return []
    return [
        Section(
            key="submetrics",
            title="Turn-level submetrics per chatbot and language",
            note="Mean understandability (the response alone) and sensibleness (the response in "
            "its context), 1-5, over the chatbot turns judged ok.",
            tables=[table(folder, "submetric_means", "Means over chatbot turns", means)],
        )
    ]
