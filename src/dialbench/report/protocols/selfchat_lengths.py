"""The self-chat utterance lengths as a report section (BotChat Table 1 and Figure 3). Every
BotChat protocol's report would show them; only the first of those the run has judgments of
does, so the report holds them once."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from dialbench.botchat.lengths import length_table, store_lengths
from dialbench.judge.protocols.arena import ArenaProtocol
from dialbench.judge.protocols.gteval import GTEvalProtocol
from dialbench.judge.protocols.unieval import UniEvalProtocol
from dialbench.plotting import save_png
from dialbench.report.context import ReportContext
from dialbench.report.section import Section, relative, write_table
from dialbench.schema import Judgment
from dialbench.store import RunStore

BOTCHAT_PROTOCOLS = (UniEvalProtocol.name, ArenaProtocol.name, GTEvalProtocol.name)
DEFINITION = (
    "Generated utterances of finished self-chats only (the ChatSEED is human), in cl100k_base "
    "tokens; `utterances` counts them per model. Mean = BotChat Table 1; the violin plot "
    "(Figure 3, log scale) shows the whole distribution."
)


def violin_plot(lengths: pd.DataFrame, path: Path) -> Path:
    """Figure 3: the distribution of utterance lengths per model (log scale: they span
    a few tokens to thousands)."""
    models = sorted(lengths["model"].unique())
    data = [lengths.loc[lengths["model"] == m, "tokens"].clip(lower=1).to_numpy() for m in models]
    canvas, axes = plt.subplots(figsize=(max(4.0, 1.4 * len(models) + 2), 4))
    axes.violinplot(data, showmedians=True)
    axes.set_xticks(range(1, len(models) + 1), models, rotation=20, ha="right")
    axes.set_yscale("log")
    axes.set_ylabel("cl100k_base tokens per utterance")
    axes.set_title("Self-chat utterance lengths per model")
    return save_png(canvas, path)


def shows_lengths(store: RunStore, protocol: str) -> bool:
    """Whether `protocol` is the first BotChat protocol with judgments in the run."""
    judged = (p for p in BOTCHAT_PROTOCOLS if next(store.records(Judgment, protocol=p), None))
    return next(judged, None) == protocol


def lengths_sections(context: ReportContext, protocol: str) -> list[Section]:
    if not shows_lengths(context.store, protocol):
        return []
    lengths = store_lengths(context.store)
    if lengths.empty:
        return []
    folder = context.folder
    violin = violin_plot(lengths, folder / "plots" / "selfchat_lengths_violin.png")
    return [
        Section(
            key="selfchat-lengths",
            title="Self-chat utterance lengths per model (BotChat Table 1, Figure 3)",
            note=DEFINITION,
            plots=relative(folder, [violin]),
            tables=[
                write_table(
                    folder, "selfchat_lengths", "cl100k tokens per utterance", length_table(lengths)
                )
            ],
        )
    ]
