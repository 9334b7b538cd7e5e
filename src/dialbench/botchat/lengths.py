"""Utterance lengths of self-chats per model in cl100k_base tokens (BotChat Table 1 and the
violin plot of Figure 3). Only generated utterances count: the ChatSEED is human."""

from __future__ import annotations

import pandas as pd

from dialbench.botchat.selfchat import SOURCE
from dialbench.botchat.tokens import cl100k_tokens
from dialbench.schema import Dialogue
from dialbench.store import RunStore


def utterance_lengths(dialogues: list[Dialogue]) -> pd.DataFrame:
    """One row per generated utterance: model, dialogue, turn index, cl100k tokens."""
    rows = [
        {
            "model": turn.model,
            "dialogue_id": d.id,
            "turn_index": i,
            "tokens": cl100k_tokens(turn.text),
        }
        for d in dialogues
        if d.source == SOURCE and d.end_reason != "error"
        for i, turn in enumerate(d.turns)
        if turn.model is not None
    ]
    return pd.DataFrame(rows, columns=["model", "dialogue_id", "turn_index", "tokens"])


def length_table(lengths: pd.DataFrame) -> pd.DataFrame:
    """Per model: utterances, mean (Table 1), median, 90th percentile and max tokens."""
    grouped = lengths.groupby("model", sort=True)["tokens"]
    table = grouped.agg(
        utterances="count",
        mean="mean",
        median="median",
        p90=lambda t: t.quantile(0.9),
        max="max",
    ).reset_index()
    return table.sort_values("mean").reset_index(drop=True)


def store_lengths(store: RunStore) -> pd.DataFrame:
    return utterance_lengths(list(store.records(Dialogue, source=SOURCE)))
