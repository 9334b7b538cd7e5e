"""Utterance lengths of self-chats per model in cl100k_base tokens (BotChat Table 1 and the
violin plot of Figure 3). Only generated utterances count: the ChatSEED is human."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from dialbench.plotting import save_png
from dialbench.schema import Dialogue
from dialbench.selfchat.generation import SOURCE
from dialbench.selfchat.tokens import cl100k_tokens
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


def violin_plot(lengths: pd.DataFrame, path: Path) -> Path:
    """Figure 3: the distribution of utterance lengths per model (log scale: they span
    a few tokens to thousands)."""
    models = sorted(lengths["model"].unique())
    data = [lengths.loc[lengths["model"] == m, "tokens"].clip(lower=1).to_numpy() for m in models]
    figure, axes = plt.subplots(figsize=(max(4.0, 1.4 * len(models) + 2), 4))
    axes.violinplot(data, showmedians=True)
    axes.set_xticks(range(1, len(models) + 1), models, rotation=20, ha="right")
    axes.set_yscale("log")
    axes.set_ylabel("cl100k_base tokens per utterance")
    axes.set_title("Self-chat utterance lengths per model")
    return save_png(figure, path)


def store_lengths(store: RunStore) -> pd.DataFrame:
    return utterance_lengths(list(store.records(Dialogue, source=SOURCE)))
