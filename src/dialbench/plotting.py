"""Figures are only ever written to files: matplotlib's Agg backend, and one way to save a PNG."""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

DPI = 120
LABEL_WIDTH = 28
# Unicode's bidirectional formatting characters: marks, embeddings, overrides and isolates.
_BIDI_CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def save_png(canvas: Figure, path: Path) -> Path:
    """Lay out, write and close (pyplot keeps every open canvas alive otherwise)."""
    canvas.tight_layout()
    canvas.savefig(path, dpi=DPI)
    plt.close(canvas)
    return path


def plot_label(name: str, width: int = LABEL_WIDTH) -> str:
    """A name as a tick, legend or title label: without bidi controls (a U+202E in a name would
    mirror the whole label) and, past `width` characters, elided in the middle, so the start
    (backend, host) and the end (model name) both stay readable and nothing is cut at the edge."""
    clean = _BIDI_CONTROLS.sub("", name)
    if len(clean) <= width:
        return clean
    head = (width - 1) // 2
    return clean[:head] + "…" + clean[len(clean) - (width - 1 - head) :]


def file_stem(name: str) -> str:
    """A name usable in a file name: anything but letters, digits, `.`, `_` and `-` becomes `_`
    (a `/` in a dimension name must not reach another folder)."""
    return re.sub(r"[^\w.-]+", "_", _BIDI_CONTROLS.sub("", name)).strip("._") or "_"
