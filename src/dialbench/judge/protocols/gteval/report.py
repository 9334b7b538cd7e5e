"""The GTEval part of the report (BotChat Figure 6): per judge and model, wins, ties and losses
of its self-chats against the human dialogues they were seeded from; which judgment holds which
self-chat is read from the store."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from dialbench.arena.botchat import gteval_plots, gteval_table, self_chats
from dialbench.judge.protocols.gteval import OUTCOME_DEFINITION, GTEvalProtocol
from dialbench.report.sections import Section, relative, table
from dialbench.selfchat.report import lengths_sections
from dialbench.store import RunStore


def sections(frame: pd.DataFrame, folder: Path, store: RunStore) -> list[Section]:
    results = gteval_table(store, self_chats(store))
    found = lengths_sections(store, folder, GTEvalProtocol.name)
    if results.empty:
        return found
    return [
        *found,
        Section(
            key="gteval",
            title="GTEval: self-chats against the human dialogue (BotChat Figure 6)",
            note=f"{OUTCOME_DEFINITION} win_rate = wins / judgments, win_or_tie_rate = "
            "(wins + ties) / judgments; models sorted by win_or_tie_rate.",
            plots=relative(folder, gteval_plots(results, folder / "plots")),
            tables=[table(folder, "gteval", "Per judge and model, both orders", results)],
        ),
    ]
