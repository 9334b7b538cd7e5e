"""What `dialbench stats` reports, as one record: the dataset statistics and, once the run is
judged, every chatbot figure with its 95% interval over seeds. Loaded when the command runs (the
statistics bring jieba and pandas)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from dialbench.analysis.dataset_stats import DatasetStats, dataset_statistics
from dialbench.figures.corrected import corrected_intervals
from dialbench.figures.figure_basis import has_labels
from dialbench.figures.frame import frame_records
from dialbench.figures.intervals import KEYS, chatbot_intervals
from dialbench.figures.labelled_observations import labelled_observations
from dialbench.figures.observations import observations
from dialbench.figures.run_reads import RunReads
from dialbench.schema import ALL_LANGUAGES, Dialogue, Record
from dialbench.store import RunStore


class ChatbotFigure(Record):
    """A chatbot figure (an issue rate, a mean score, a pass or win rate) of one judge, chatbot
    and language (`all`: the languages together), with its 95% interval over seeds."""

    protocol: str
    judge: str
    dimension: str
    better: Literal["higher", "lower"]
    chatbot: str
    language: str
    seeds: int
    items: int
    value: float
    low: float | None = Field(description="None with a single seed")
    high: float | None
    note: str = Field(description="why the interval is not to be trusted, or empty")
    labelled: int = Field(
        default=0, description="items with a human label in the run's probability sample"
    )
    corrected: float | None = Field(
        default=None,
        description="the figure corrected by the human labels (PPI++, figures/corrected.py); "
        "None without enough labels in this cell",
    )
    corrected_low: float | None = None
    corrected_high: float | None = None
    bias: float | None = Field(
        default=None, description="judge − human on the labelled items (weighted)"
    )
    bias_low: float | None = None
    bias_high: float | None = None
    correction_note: str = Field(
        default="", description="why the cell has no corrected figure, or what to know of it"
    )


UNSHOWN = ["labelled_units", "judge_weight", "labels_only", "labels_only_low", "labels_only_high"]


class RunStats(DatasetStats):
    chatbot_figures: list[ChatbotFigure] = Field(
        default_factory=list, description="empty until the run has judgments"
    )


def chatbot_figures(store: RunStore, source: str | None) -> list[ChatbotFigure]:
    """Every chatbot figure of the run's judgments (of the dialogues of `source`, when given),
    the languages of one figure together and `all` after them."""
    run = RunReads(store)
    frame = run.frame
    if source is not None:
        kept = {dialogue.id for dialogue in store.records(Dialogue, source=source)}
        frame = frame[frame["dialogue_id"].isin(kept)]
    if frame.empty:
        return []
    observed = observations(frame, run)
    figures = chatbot_intervals(observed)
    labelled = labelled_observations(observed, store)
    if has_labels(labelled.frame):
        corrected = corrected_intervals(labelled.frame).rename(columns={"note": "correction_note"})
        figures = figures.merge(corrected.drop(columns=UNSHOWN), on=KEYS, how="left")
    rows = figures.rename(columns={"units": "seeds"})
    found = [ChatbotFigure.model_validate(row) for row in frame_records(rows)]
    return sorted(
        found,
        key=lambda f: (
            f.protocol,
            f.judge,
            f.dimension,
            f.language == ALL_LANGUAGES,
            f.language,
            f.chatbot,
        ),
    )


def run_statistics(store: RunStore, source: str | None = None) -> RunStats:
    return RunStats(
        **dict(dataset_statistics(store, source)), chatbot_figures=chatbot_figures(store, source)
    )
