"""The report's figures as PNGs (matplotlib, Agg): every bar and cell is labelled with its count,
so a rate over three dialogues never looks like one over three hundred."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dialbench.plotting import save_png
from dialbench.report.tables import ALL, ISSUES_PREFIX, issue_columns


def slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text).strip("-").lower()


def issue_heatmaps(rates: pd.DataFrame, folder: Path) -> list[Path]:
    """MEDAL Figure 2, one per judge: rows chatbot x language, columns the issue rates (red) and
    the mean overall score (green, its own scale); each row names its number of dialogues."""
    paths = []
    for judge, part in rates[rates["language"] != ALL].groupby("judge", sort=True):
        part = part.sort_values(["chatbot", "language"])
        issues = issue_columns(part)
        labels = [
            f"{c} · {lang} (n={n})"
            for c, lang, n in part[["chatbot", "language", "items"]].itertuples(index=False)
        ]
        height = 2.6 + 0.4 * len(part)
        figure, (left, right) = plt.subplots(
            1,
            2,
            figsize=(2.2 + 0.9 * len(issues) + 1.2, height),
            gridspec_kw={"width_ratios": [len(issues), 1]},
        )
        values = part[issues].to_numpy(dtype=float)
        left.imshow(values, cmap="Reds", vmin=0, vmax=1, aspect="auto")
        for (row, col), value in np.ndenumerate(values):
            colour = "white" if value > 0.6 else "black"
            left.text(col, row, f"{value:.0%}", ha="center", va="center", fontsize=8, color=colour)
        left.set_xticks(
            range(len(issues)),
            [i.removeprefix(ISSUES_PREFIX) for i in issues],
            rotation=40,
            ha="right",
        )
        left.set_yticks(range(len(part)), labels)
        left.set_title("dialogues with the issue")
        overall = part[["overall"]].to_numpy(dtype=float)
        right.imshow(overall, cmap="Greens", vmin=1, vmax=5, aspect="auto")
        for row, value in enumerate(overall[:, 0]):
            colour = "white" if value > 3.5 else "black"
            right.text(0, row, f"{value:.2f}", ha="center", va="center", fontsize=8, color=colour)
        right.set_xticks([0], ["overall"])
        right.set_yticks([])
        right.set_title("mean 1-5")
        figure.suptitle(f"Issues per chatbot and language — judge {judge}", fontsize=10)
        paths.append(save_png(figure, folder / f"issues_heatmap_{slug(str(judge))}.png"))
    return paths


def issue_proportion_bars(proportions: pd.DataFrame, folder: Path) -> list[Path]:
    """MEDAL Figure 6, per judge: the share of dialogues with each issue, a bar per language."""
    paths = []
    for judge, part in proportions.groupby("judge", sort=True):
        issues = list(dict.fromkeys(part["issue"]))
        languages = [*sorted(set(part["language"]) - {ALL}), ALL]
        width = 0.8 / len(languages)
        figure, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(issues) * len(languages) / 3), 4))
        for k, language in enumerate(languages):
            rows = part[part["language"] == language].set_index("issue").reindex(issues)
            xs = np.arange(len(issues)) - 0.4 + width * (k + 0.5)
            n = int(rows["dialogues"].max())
            ax.bar(xs, rows["rate"].fillna(0), width, label=f"{language} (n={n})")
        if not part["flagged"].any():
            ax.text(
                0.5,
                0.5,
                "no dialogue flagged with any issue",
                ha="center",
                transform=ax.transAxes,
                color="grey",
            )
        ax.set_xticks(range(len(issues)), issues, rotation=30, ha="right")
        ax.set_ylabel("share of dialogues")
        ax.set_ylim(0, 1)
        ax.legend(fontsize=7, ncol=2)
        ax.set_title(f"Issue proportions per language — judge {judge}", fontsize=10)
        paths.append(save_png(figure, folder / f"issue_proportions_{slug(str(judge))}.png"))
    return paths


def stacked_distribution(
    table: pd.DataFrame, by: list[str], levels: list[int], title: str, path: Path
) -> Path:
    """Horizontal stacked shares of each score level, one bar per row of `by`, with its count."""
    figure, ax = plt.subplots(figsize=(7, 2.0 + 0.4 * len(table)))
    labels = [
        " · ".join(map(str, row)) + f" (n={n})"
        for row, n in zip(table[by].itertuples(index=False), table["judgments"], strict=True)
    ]
    left = np.zeros(len(table))
    colours = plt.get_cmap("RdYlGn")(np.linspace(0.1, 0.9, len(levels)))
    for level, colour in zip(levels, colours, strict=True):
        shares = table[f"share_{level}"].to_numpy(dtype=float)
        ax.barh(labels, shares, left=left, color=colour, label=str(level))
        left += shares
    ax.set_xlim(0, 1)
    ax.invert_yaxis()
    ax.set_xlabel("share of judgments")
    ax.legend(
        title="score", ncol=len(levels), fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2)
    )
    ax.set_title(title, fontsize=10)
    return save_png(figure, path)
