"""Metrics that ship trained inside the package, so `dialbench metric score sensibleness RUN`
needs no training step.

Each is a folder here named after the metric: the model directory `metric train` writes
(metric.json + heads/*.npz, every head checked by sha256 when it loads) and card.json, the model
card's facts: its training data with their licences and the held-out figures
`scripts/train_default_metric.py` printed when it wrote the model, each with the domain it was
measured on and what its truth is. A name resolves to one of these only when no directory of that
name exists, so a user's own `models/sensibleness` is never shadowed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from dialbench.domains import Domain, unmeasured
from dialbench.errors import DialbenchError
from dialbench.io.validation import validate_record
from dialbench.schema import Record

if TYPE_CHECKING:
    from dialbench.metrics.saved_metric import MetricInfo

PACKAGED = Path(__file__).parent
CARD = "card.json"
MODEL_FILE = "metric.json"
"""The model directory's description (`dialbench.metrics.saved_metric.METADATA`, named here too so a
pipeline file resolves a packaged name without loading numpy)."""


Labels = Literal["human", "machine-translated human", "constructed"]
LABELS: dict[Labels, str] = {
    "human": "human ratings",
    "machine-translated human": "human ratings of turns machine-translated from another language",
    "constructed": "real vs corrupted pairs (next-turn prediction): a proxy, not human judgment",
}


class CardFigure(Record):
    """One held-out figure: Pearson against graded labels, AUROC for real vs broken."""

    evaluation: str = Field(description="what was scored, e.g. 'DBDC3 held-out dialogues'")
    domain: Domain = Field(description="the domain of the dialogues scored (`dialbench.domains`)")
    labels: Labels = Field(description="what the truth is (`LABELS`)")
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
    return validate_record(MetricCard, json.loads(path.read_text(encoding="utf-8")), path, None)


def unmeasured_domains(card: MetricCard) -> list[str]:
    """The domains none of the card's figures was measured on."""
    return unmeasured(figure.domain for figure in card.figures)


def shown_card(info: MetricInfo) -> MetricCard:
    """The packaged metric's card; where it is missing or was measured on another version, one
    made of the held-out DBDC3 figures its metric.json holds (chit-chat, human labels)."""
    card = load_card(info.name)
    if card is not None and card.version == info.version:
        return card
    figures = [
        CardFigure(
            evaluation="DBDC3 held-out dialogues",
            domain="chit-chat",
            labels="human",
            language=dev.language,
            measure="pearson",
            value=dev.pearson,
            n_items=dev.n_items,
            n_dialogues=dev.n_dialogues,
        )
        for dev in info.dev
    ]
    data = [f"the runs of its training config ({info.objective})"]
    return MetricCard(name=info.name, version=info.version, data=data, figures=figures)


def packaged_metrics() -> list[tuple[MetricInfo, MetricCard]]:
    """Every packaged metric, loaded and verified, with the card its figures come from."""
    from dialbench.metrics.saved_metric import load_model  # its features: not to resolve a name

    infos = [load_model(PACKAGED / name).info for name in packaged_names()]
    return [(info, shown_card(info)) for info in infos]
