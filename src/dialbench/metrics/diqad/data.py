"""The labelled dialogues DiQAD's classifiers learn from: 0/1/2 labels from a run or a dialogue
file, grades made from turn labels, domains, and the held-out split."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from dialbench.errors import DialbenchError
from dialbench.metrics.examples import file_dialogues, held_out
from dialbench.schema import Annotation, Dialogue, Judgment
from dialbench.store import RunStore


def dialogue_labels(store: RunStore, dimension: str, protocol: str | None = None) -> dict[str, int]:
    """Dialogue id -> 0/1/2: the rounded mean over annotators (or judges and samples)."""
    values: dict[str, list[float]] = defaultdict(list)
    if protocol is None:
        for annotation in store.records(Annotation):
            value = annotation.labels.get(dimension)
            if annotation.target.kind == "dialogue" and isinstance(value, int | float):
                values[annotation.target.dialogue_id].append(float(value))
    else:
        for judgment in store.records(Judgment, protocol=protocol):
            value = (judgment.result or {}).get(dimension)
            if judgment.target.kind == "dialogue" and isinstance(value, int | float):
                values[judgment.target.dialogue_id].append(float(value))
    return {key: int(np.clip(round(float(np.mean(v))), 0, 2)) for key, v in values.items()}


def breakdown_grades(
    dialogues: Sequence[Dialogue],
    annotations: Iterable[Annotation],
    dimension: str = "breakdown",
    broken: str = "X",
) -> list[int]:
    """0/1/2 per dialogue by the tertiles of its share of `broken` turn labels (the most = 0): a
    dialogue-level quality for data labelled turn by turn, such as DBDC3."""
    marks: dict[str, list[float]] = defaultdict(list)
    for annotation in annotations:
        if dimension in annotation.labels:
            marks[annotation.target.dialogue_id].append(
                float(annotation.labels[dimension] == broken)
            )
    unlabelled = [d.id for d in dialogues if not marks[d.id]]
    if unlabelled:
        raise DialbenchError(f"dialogue {unlabelled[0]} has no {dimension!r} label to grade it")
    rate = np.array([np.mean(marks[d.id]) for d in dialogues])
    cuts = np.quantile(rate, [1 / 3, 2 / 3])
    return [int(2 - np.searchsorted(cuts, r, side="right")) for r in rate]


def labelled_dialogues(
    source: Path, dimension: str, protocol: str | None = None
) -> list[tuple[Dialogue, int]]:
    """Dialogues with a 0/1/2 label: from a run (its dialogue annotations, or a judge's
    judgments with `protocol`), or from a dialogue file whose dialogues carry the label in
    their metadata under `dimension`."""
    if source.is_dir():
        with RunStore.open(source, create=False) as store:
            labels = dialogue_labels(store, dimension, protocol)
            return [(d, labels[d.id]) for d in store.records(Dialogue) if d.id in labels]
    found = []
    for dialogue in file_dialogues([source], None):
        value = dialogue.metadata.get(dimension)
        if isinstance(value, int | float) and not isinstance(value, bool):
            found.append((dialogue, int(np.clip(round(value), 0, 2))))
    return found


def domain(dialogue: Dialogue, key: str) -> str:
    """A dialogue's domain: its `source`, or the value of a metadata key."""
    return dialogue.source if key == "source" else str(dialogue.metadata.get(key, "-"))


def split(dialogues: Sequence[Dialogue], fraction: float, seed: int) -> list[bool]:
    """Held out by a hash of the dialogue id, as `metric train` does."""
    held = [held_out(d.id, fraction, seed) for d in dialogues]
    if all(held) or not any(held):
        raise DialbenchError(
            f"holding out {fraction:.0%} of {len(dialogues)} dialogue(s) leaves no training or "
            "no held-out dialogue: change the fraction or label more dialogues"
        )
    return held
