"""Example files shipped inside the package, so the demo and new users have data offline."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

DATA_SUFFIXES = (".jsonl", ".json", ".csv", ".tsv", ".xlsx", ".zip")


def bundled() -> dict[str, Path]:
    """Example name -> path of the file, for every bundled example."""
    folder = resources.files(__name__)
    return {
        Path(f.name).stem: Path(str(f))
        for f in sorted(folder.iterdir(), key=lambda f: f.name)
        if f.name.endswith(DATA_SUFFIXES)
    }
