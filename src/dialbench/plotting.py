"""Figures are only ever written to files: matplotlib's Agg backend, and one way to save a PNG."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

DPI = 120


def save_png(figure: Figure, path: Path) -> Path:
    """Lay out, write and close (pyplot keeps every open figure alive otherwise)."""
    figure.tight_layout()
    figure.savefig(path, dpi=DPI)
    plt.close(figure)
    return path
