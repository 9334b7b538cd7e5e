"""Metrics that ship trained inside the package, so `dialbench metric score sensibleness RUN`
needs no training step.

Each is a folder here named after the metric: the model directory `metric train` writes
(metric.json + heads/*.npz, every head checked by sha256 when it loads) and card.json, the model
card's facts: its training data with their licences and the held-out figures
`scripts/train_default_metric.py` printed when it wrote the model. A name resolves to one of
these only when no directory of that name exists, so a user's own `models/sensibleness` is never
shadowed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from dialbench.errors import DialbenchError
from dialbench.schema import Record

PACKAGED = Path(__file__).parent
CARD = "card.json"
MODEL_FILE = "metric.json"
"""The model directory's description (`dialbench.metrics.model.METADATA`, named here too so a
pipeline file resolves a packaged name without loading numpy)."""


class CardFigure(Record):
    """One held-out figure: Pearson against graded human labels, AUROC for real vs broken."""

    evaluation: str = Field(description="what was scored, e.g. 'DBDC3 held-out dialogues'")
    language: str
    measure: Literal["pearson", "auroc"]
    value: float | None
    n_items: int
    n_dialogues: int


class MetricCard(Record):
    name: str
    version: str = Field(description="the version in metric.json these figures were measured on")
    data: list[str] = Field(description="the training data, each with its licence")
    figures: list[CardFigure]


def packaged_names() -> list[str]:
    return sorted(p.name for p in PACKAGED.iterdir() if (p / MODEL_FILE).is_file())


def is_packaged(model: str | Path, folder: Path | None = None) -> bool:
    """Whether `model` names a packaged metric: a bare name, with no directory of that name
    (under `folder`, when the name was written in a file there)."""
    path = Path(model)
    local = folder / path if folder is not None else path
    return len(path.parts) == 1 and not local.exists() and path.name in packaged_names()


def metric_folder(model: str | Path) -> Path:
    """A model directory, or the folder of the packaged metric of that name."""
    path = Path(model)
    if path.is_dir():
        return path
    if is_packaged(path):
        return PACKAGED / path.name
    names = ", ".join(packaged_names()) or "none"
    raise DialbenchError(
        f"{model}: no such model directory, and no packaged metric of that name (packaged: {names})"
    )


def load_card(name: str) -> MetricCard | None:
    path = PACKAGED / name / CARD
    if not path.is_file():
        return None
    return MetricCard.model_validate_json(path.read_text(encoding="utf-8"))
