"""The report's plots that any protocol can use, as PNGs (matplotlib, Agg): every bar and cell
is labelled with its count, so a rate over three dialogues never looks like one over three
hundred."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dialbench.plotting import plot_label, save_png


def stacked_distribution(
    table: pd.DataFrame, by: list[str], levels: list[int], title: str, path: Path
) -> Path:
    """Horizontal stacked shares of each score level, one bar per row of `by`, with its count."""
    canvas, ax = plt.subplots(figsize=(7, 2.0 + 0.4 * len(table)))
    labels = [
        " · ".join(plot_label(str(value)) for value in row) + f" (n={n})"
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
    ax.set_title(plot_label(title, width=90), fontsize=10)
    return save_png(canvas, path)
