"""One report as its sections see it: where its files go, the run's judgments and store, and
what sections compute from them, each once per report however many sections ask (a protocol's
chatbot figures are in its own section and again in the differences between chatbots; the
BotChat sections and GTEval's figures read the same self-chats; the corrected figures and the
differences between chatbots read the same human labels)."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

import pandas as pd

from dialbench.figures.labelled_observations import LabelledObservations, labelled_observations
from dialbench.figures.observations import chatbot_observations, protocol_observations
from dialbench.figures.run_reads import RunReads
from dialbench.store import RunStore


class ReportContext(RunReads):
    """`folder` is where the report's tables and plots go."""

    def __init__(self, store: RunStore, folder: Path) -> None:
        super().__init__(store)
        self.folder = folder

    @cached_property
    def observations(self) -> dict[str, pd.DataFrame]:
        """Each protocol's chatbot-figure observations (`figures/observations.py`), by protocol."""
        return protocol_observations(self.frame, self)

    @cached_property
    def chatbot_observations(self) -> pd.DataFrame:
        """Every protocol's observations as one frame, human dialogues' left out."""
        return chatbot_observations(self.observations.values())

    @cached_property
    def labelled(self) -> LabelledObservations:
        """The observations with each labelled item's human value and sampling weight, or why
        none is labelled (`figures/labelled_observations.py`)."""
        return labelled_observations(self.chatbot_observations, self.store)
