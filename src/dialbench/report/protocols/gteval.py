"""The GTEval part of the report (BotChat Figure 6): per judge and model, wins, ties and losses
of its self-chats against the human dialogues they were seeded from; which judgment holds which
self-chat is read from the store."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dialbench.botchat.results import gteval_table
from dialbench.judge.protocols.gteval import OUTCOME_DEFINITION, GTEvalProtocol
from dialbench.plotting import file_stem, save_png
from dialbench.report.chatbot_figures import interval_cells, protocol_figures, with_intervals
from dialbench.report.context import ReportContext
from dialbench.report.protocols.selfchat_lengths import lengths_sections
from dialbench.report.section import Section, relative, write_table


def gteval_plots(table: pd.DataFrame, folder: Path) -> list[Path]:
    """Figure 6: win / tie / lose shares against the human dialogue, one bar per model."""
    paths = []
    for judge, part in table.groupby("judge", sort=True):
        canvas, axes = plt.subplots(figsize=(6, 1.2 + 0.5 * len(part)))
        left = np.zeros(len(part))
        for column, colour in (("wins", "tab:green"), ("ties", "tab:gray"), ("losses", "tab:red")):
            share = (part[column] / part["judgments"]).to_numpy(dtype=float)
            axes.barh(part["model"], share, left=left, color=colour, label=column)
            left += share
        axes.invert_yaxis()
        axes.set_xlim(0, 1)
        axes.set_xlabel("share of judgments (both orders)")
        axes.set_title(f"GTEval against the human dialogue — judge {judge}")
        axes.legend(fontsize="small", loc="lower right")
        paths.append(save_png(canvas, folder / f"gteval_{file_stem(str(judge))}.png"))
    return paths


def sections(frame: pd.DataFrame, context: ReportContext) -> list[Section]:
    results = gteval_table(context.store, context.self_chats)
    found = lengths_sections(context, GTEvalProtocol.name)
    if results.empty:
        return found
    folder = context.folder
    figures = protocol_figures(context, GTEvalProtocol.name)
    rates = {"win_rate": "win", "win_or_tie_rate": "win_or_tie"}
    results = with_intervals(results.rename(columns={"model": "chatbot"}), figures, rates)
    results = results.rename(columns={"chatbot": "model"})
    return [
        *found,
        Section(
            key="gteval",
            title="GTEval: self-chats against the human dialogue (BotChat Figure 6)",
            note=f"{OUTCOME_DEFINITION} win_rate = wins / judgments, win_or_tie_rate = "
            "(wins + ties) / judgments, each with its 95% interval [low–high] over the seeds "
            "the self-chats grew from (seeds); models sorted by win_or_tie_rate.",
            plots=relative(folder, gteval_plots(results, folder / "plots")),
            tables=[
                write_table(
                    folder,
                    "gteval",
                    "Per judge and model, both orders",
                    results,
                    interval_cells(results, rates=list(rates)),
                )
            ],
        ),
    ]
