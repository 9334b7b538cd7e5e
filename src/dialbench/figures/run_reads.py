"""What the chatbot figures read from a run's store (its judgments as one frame, the seed units,
the self-chats, the replays), each read once however often it is asked for: a report asks in
each protocol's sections and again for its differences between chatbots, its GTEval table reads
the same self-chats as GTEval's figures, and its replay section the same replays as replay's."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from dialbench.figures.frame import judgment_frame

if TYPE_CHECKING:
    import pandas as pd

    from dialbench.schema import Dialogue
    from dialbench.store import RunStore


class RunReads:
    """A run's store and what is read from it, kept for as long as the object lives (one
    report, one command): made again, it reads the store as it is then."""

    def __init__(self, store: RunStore) -> None:
        self.store = store

    @cached_property
    def frame(self) -> pd.DataFrame:
        """Every judgment of the run, placed (`figures.frame.judgment_frame`)."""
        return judgment_frame(self.store, self.seed_units)

    @cached_property
    def seed_units(self) -> dict[str, str]:
        """`RunStore.seed_units`."""
        return self.store.seed_units()

    @cached_property
    def self_chats(self) -> dict[str, Dialogue]:
        """The finished self-chats by id (`botchat.results.self_chats`)."""
        from dialbench.botchat.results import self_chats

        return self_chats(self.store)

    @cached_property
    def replays(self) -> dict[str, Dialogue]:
        """The stored replays (`dialbench replay`) by id, those that ended in an error too."""
        from dialbench.replay_records import SOURCE
        from dialbench.schema import Dialogue

        return {d.id: d for d in self.store.records(Dialogue, source=SOURCE)}
