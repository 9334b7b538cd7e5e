"""The UniEval part of the report: from the UniEval judgments, per judge and chatbot the share
of dialogues judged human and where the judge put the first AI-generated utterance; with each
self-chat's length and ChatSEED from the store, pass@N (BotChat Figure 4)."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from dialbench.botchat.passrate import DEFAULT_NS, DEFINITION, pass_at_n
from dialbench.botchat.results import unieval_verdicts
from dialbench.figures.frame import ok
from dialbench.judge.protocols.unieval import UniEvalProtocol
from dialbench.plotting import file_stem, save_png
from dialbench.report.chatbot_figures import interval_cells, protocol_figures, with_intervals
from dialbench.report.context import ReportContext
from dialbench.report.protocols.selfchat_lengths import lengths_sections
from dialbench.report.section import Section, relative, write_table


def human_rates(frame: pd.DataFrame) -> pd.DataFrame:
    """Per judge and chatbot: judgments, unscored, judged human (count and share of scored),
    and the median first AI index among those judged AI-involved."""
    rows = []
    own = frame[frame["protocol"] == UniEvalProtocol.name]
    for column in ("ai_involved", "first_ai_index"):  # absent when nothing was scored
        if column not in own:
            own = own.assign(**{column: float("nan")})
    for (judge, chatbot), part in own.groupby(["judge", "chatbot"], sort=True):
        scored = ok(part)
        involved = scored["ai_involved"].astype(float) == 1.0
        human = int((~involved).sum())
        indices = scored.loc[involved, "first_ai_index"]
        rows.append(
            {
                "judge": judge,
                "chatbot": chatbot,
                "judgments": len(part),
                "unscored": len(part) - len(scored),
                "judged_human": human,
                "human_rate": human / len(scored) if len(scored) else None,
                "median_first_ai_index": float(indices.median()) if len(indices) else None,
            }
        )
    return pd.DataFrame(rows)


def pass_plots(table: pd.DataFrame, folder: Path) -> list[Path]:
    """Figure 4: one line per chatbot, pass rate against N, one plot per judge."""
    paths = []
    for judge, part in table.dropna(subset=["rate"]).groupby("judge", sort=True):
        canvas, axes = plt.subplots(figsize=(6, 4))
        for chatbot, line in part.groupby("chatbot", sort=True):
            axes.plot(line["n"], line["rate"], marker="o", label=str(chatbot))
        axes.set_xlabel("N (utterances, the ChatSEED included)")
        axes.set_ylabel("pass rate")
        axes.set_ylim(0, 1.05)
        axes.set_xticks(sorted(part["n"].unique()))
        axes.set_title(f"UniEval pass@N — judge {judge}")
        axes.legend(fontsize="small")
        paths.append(save_png(canvas, folder / f"unieval_pass_{file_stem(str(judge))}.png"))
    return paths


def pass_sections(context: ReportContext) -> list[Section]:
    """pass@N at the paper's N, over the scored judgments of finished self-chats."""
    verdicts = unieval_verdicts(context.store, context.self_chats)
    if verdicts.empty:
        return []
    folder = context.folder
    passes = pass_at_n(verdicts, DEFAULT_NS)
    return [
        Section(
            key="unieval-pass",
            title="UniEval pass@N per chatbot (BotChat Figure 4)",
            note=f"{DEFINITION} rate = passed / dialogues.",
            plots=relative(folder, pass_plots(passes, folder / "plots")),
            tables=[write_table(folder, "unieval_pass", "Per judge, chatbot and N", passes)],
        )
    ]


def sections(frame: pd.DataFrame, context: ReportContext) -> list[Section]:
    rates = human_rates(frame)
    if rates.empty:
        return []
    figures = protocol_figures(context, UniEvalProtocol.name)
    rates = with_intervals(rates, figures, {"human_rate": "judged_human"})
    return [
        *lengths_sections(context, UniEvalProtocol.name),
        Section(
            key="unieval",
            title="UniEval: dialogues judged human per chatbot",
            note="The judge reads each self-chat as chats numbered from 1 and says whether it is "
            "AI-involved and from which chat on. human_rate = judged not AI-involved / scored "
            "judgments (the pass rate at the dialogue's full length), with its 95% interval "
            "[low–high] over the ChatSEEDs the dialogues grew from (seeds); "
            "median_first_ai_index over the dialogues judged AI-involved.",
            tables=[
                write_table(
                    context.folder,
                    "unieval_human_rates",
                    "Per judge and chatbot",
                    rates,
                    interval_cells(rates, rates=["human_rate"]),
                )
            ],
        ),
        *pass_sections(context),
    ]
