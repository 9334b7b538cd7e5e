"""The BotChat Arena part of the report: the verdicts per judge from the arena judgments, and,
from the store (each pair's models, ChatSEED and length), how often a verdict flips when the two
conversations swap places, bootstrap ELO and Bradley–Terry ratings with 95 % intervals, and the
win / tie / lose matrices (Figure 5)."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dialbench.botchat.results import (
    DEFAULT_RESAMPLES,
    DEFAULT_ROUNDS,
    arena_ratings,
    arena_verdicts,
    ratings_definition,
    win_tie_lose,
)
from dialbench.botchat.verdicts import CONSISTENCY_DEFINITION, groups, order_consistency, win_matrix
from dialbench.figures.frame import ok
from dialbench.judge.protocols.arena import CHOICES, OUTCOME_DEFINITION, ArenaProtocol
from dialbench.plotting import file_stem, save_png
from dialbench.report.context import ReportContext
from dialbench.report.protocols.selfchat_lengths import lengths_sections
from dialbench.report.section import Section, relative, write_table
from dialbench.schema import Dialogue


def verdict_counts(frame: pd.DataFrame) -> pd.DataFrame:
    """Per judge: judgments, unscored, and each choice with its share of the scored ones."""
    rows = []
    for judge, part in frame[frame["protocol"] == ArenaProtocol.name].groupby("judge", sort=True):
        scored = ok(part)
        row: dict[str, object] = {
            "judge": judge,
            "judgments": len(part),
            "unscored": len(part) - len(scored),
        }
        for choice in CHOICES:
            count = int((scored["choice"] == choice).sum()) if "choice" in scored else 0
            row[choice] = count
            row[f"{choice} share"] = count / len(scored) if len(scored) else None
        rows.append(row)
    return pd.DataFrame(rows)


def heatmaps(verdicts: pd.DataFrame, folder: Path) -> list[Path]:
    """Figure 5: win rate and win-or-tie rate of each row model against each column model."""
    paths = []
    for judge, n, part in groups(verdicts):
        matrix = win_matrix(part)
        models = sorted(set(matrix["model"]))
        canvas, axes = plt.subplots(1, 2, figsize=(4 + 2.4 * len(models), 1.5 + 1.2 * len(models)))
        for ax, column, title in zip(
            axes, ("win_rate", "win_or_tie_rate"), ("win rate", "win + tie rate"), strict=True
        ):
            rates = (
                matrix.pivot(index="model", columns="opponent", values=column)
                .reindex(index=models, columns=models)
                .to_numpy(dtype=float)
            )
            games = (
                matrix.pivot(index="model", columns="opponent", values="games")
                .reindex(index=models, columns=models)
                .to_numpy(dtype=float)
            )
            ax.imshow(rates, vmin=0, vmax=1, cmap="RdYlGn")
            ax.set_xticks(range(len(models)), models, rotation=30, ha="right", fontsize="small")
            ax.set_yticks(range(len(models)), models, fontsize="small")
            for r in range(len(models)):
                for c in range(len(models)):
                    if not np.isnan(rates[r, c]):
                        text = f"{rates[r, c]:.0%}\nn={int(games[r, c])}"
                        ax.text(c, r, text, ha="center", va="center", fontsize="small")
            ax.set_title(f"{title} (row vs column)")
        canvas.suptitle(f"BotChat Arena, N = {n} — judge {judge}")
        paths.append(save_png(canvas, folder / f"arena_winrate_{file_stem(judge)}_n{n}.png"))
    return paths


def ratings_sections(
    verdicts: pd.DataFrame, dialogues: dict[str, Dialogue], folder: Path
) -> list[Section]:
    """Ratings and win / tie / lose per judge and length, at the paper's rounds and draws."""
    if verdicts.empty:
        return []
    rated = arena_ratings(verdicts, dialogues, rounds=DEFAULT_ROUNDS, resamples=DEFAULT_RESAMPLES)
    unrated = [f"Note: {note}." for note in rated.notes]
    tables = [
        write_table(
            folder, "arena_win_tie_lose", "Win / tie / lose, both orders", win_tie_lose(verdicts)
        )
    ]
    if not rated.table.empty:
        title = "Bootstrap ELO and Bradley–Terry with 95 % intervals"
        tables.insert(0, write_table(folder, "arena_ratings", title, rated.table))
    return [
        Section(
            key="arena-ratings",
            title="BotChat Arena ratings and win / tie / lose per judge and length (Figure 5)",
            note=" ".join(
                [
                    "Outcomes as in the verdicts section above.",
                    ratings_definition(DEFAULT_ROUNDS, DEFAULT_RESAMPLES),
                    "Win / tie / lose: per model and opponent over both orders, `games` "
                    "verdicts; win_rate = wins / games, win_or_tie_rate = (wins + ties) / games; "
                    "the heatmaps show both rates with their games.",
                    *unrated,
                ]
            ),
            plots=relative(folder, heatmaps(verdicts, folder / "plots")),
            tables=tables,
        )
    ]


def sections(frame: pd.DataFrame, context: ReportContext) -> list[Section]:
    counts = verdict_counts(frame)
    if counts.empty:
        return []
    folder = context.folder
    verdicts = arena_verdicts(context.store, context.self_chats)
    consistency = order_consistency(verdicts)
    return [
        *lengths_sections(context, ArenaProtocol.name),
        Section(
            key="arena",
            title="BotChat Arena verdicts and position consistency per judge",
            note=f"{OUTCOME_DEFINITION} {CONSISTENCY_DEFINITION}",
            tables=[
                write_table(folder, "arena_verdicts", "Verdicts per judge", counts),
                write_table(
                    folder,
                    "arena_order_consistency",
                    "Order flips per judge and length",
                    consistency,
                ),
            ],
        ),
        *ratings_sections(verdicts, context.self_chats, folder),
    ]
