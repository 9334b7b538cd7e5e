"""The chatbot figures' observations joined with the human labels that can correct them: each
item's human value on the figure's field and its weight in the run's audit sample.

An item is labelled when its dialogue was drawn by an audit sample (`curate/audit_sample.py`)
and a complete annotation of it holds the figure's field. Its weight is 1 / (π × the share of
its stratum's drawn dialogues that were labelled): the labelled dialogues of a stratum stand for
those not labelled yet, as they would had the sample been that small (missing at random within
the stratum). The human value is read as the judge's is (`MeanFigure.result_field`, its
complement where declared), averaged over the item's annotators. Labels on a curated benchmark
are not a probability sample: they correct nothing, and `note` says so.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dialbench.curate.audit_sample import audit_samples
from dialbench.judge.registry import PROTOCOLS
from dialbench.ratings import flatten, item_target, placed_annotations
from dialbench.schema import Benchmark
from dialbench.store import RunStore


@dataclass(frozen=True)
class LabelledObservations:
    """`frame`: the observations with `human` and `weight` (NaN where not labelled); `note`:
    which sample corrects them, or why nothing can."""

    frame: pd.DataFrame
    note: str


def _fields(observed: pd.DataFrame) -> dict[tuple[str, str], tuple[str, bool]]:
    """(protocol, dimension) -> the result field its figure is the mean of, and whether of its
    complement; figures that are no declared mean (GTEval's wins) are left out."""
    found = {}
    for protocol, part in observed.groupby("protocol"):
        if protocol not in PROTOCOLS:
            continue
        dimensions = set(part["dimension"])
        declared = PROTOCOLS.load(str(protocol))
        fields = [*dimensions, *(figure.result_field for figure in declared.chatbot_figures)]
        for figure in declared.figures_in(fields):
            if figure.dimension in dimensions:
                found[(str(protocol), figure.dimension)] = (figure.result_field, figure.complement)
    return found


def _human_values(store: RunStore) -> dict[str, dict[str, float]]:
    """Item key -> field -> the mean of its annotators' values (complete labels, not reviews)."""
    values: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for annotation, placed in placed_annotations(store):
        if annotation.review_of is not None:
            continue
        for field, value in flatten(annotation.labels):
            if isinstance(value, float):
                values[placed.item][field].append(value)
    return {
        item: {field: float(np.mean(found)) for field, found in fields.items()}
        for item, fields in values.items()
    }


def _weights(sample: Benchmark, labelled_dialogues: set[str]) -> dict[str, float]:
    """Dialogue id -> 1 / (π × its stratum's labelled share), for the sample's labelled ones."""
    drawn: dict[str | None, list[str]] = defaultdict(list)
    for item in sample.items:
        drawn[item.stratum].append(item.dialogue_id)
    weights = {}
    for item in sample.items:
        if item.dialogue_id not in labelled_dialogues or not item.inclusion_probability:
            continue
        members = drawn[item.stratum]
        share = sum(d in labelled_dialogues for d in members) / len(members)
        weights[item.dialogue_id] = 1 / (item.inclusion_probability * share)
    return weights


def _chosen(samples: list[Benchmark], labelled_dialogues: set[str]) -> Benchmark:
    """The sample with the most labelled dialogues (the first stored on a tie)."""
    return max(samples, key=lambda b: sum(i.dialogue_id in labelled_dialogues for i in b.items))


def labelled_observations(observed: pd.DataFrame, store: RunStore) -> LabelledObservations:
    """The observations with each labelled item's human value and weight, and the note."""
    frame = observed.assign(human=np.nan, weight=np.nan)
    humans = _human_values(store)
    samples = audit_samples(store)
    if not samples:
        curated = sorted(b.name for b in store.records(Benchmark))
        why = (
            f"the human labels in this run are on the curated benchmark "
            f"{', '.join(repr(n) for n in curated)}, which is not a probability sample"
            if humans and curated
            else "no audit sample in this run"
        )
        return LabelledObservations(
            frame, f"{why}: corrected figures need one (dialbench audit draw)"
        )
    labelled_dialogues = {item_target(item).dialogue_id for item in humans}
    sample = _chosen(samples, labelled_dialogues)
    weights = _weights(sample, labelled_dialogues)
    fields = _fields(observed)
    human: list[float] = []
    weight: list[float] = []
    for item, protocol, dimension in zip(
        frame["item"], frame["protocol"], frame["dimension"], strict=True
    ):
        field = fields.get((protocol, dimension))
        value = humans.get(item, {}).get(field[0]) if field else None
        dialogue_weight = weights.get(item_target(item).dialogue_id)
        if field is None or value is None or dialogue_weight is None:
            human.append(np.nan)
            weight.append(np.nan)
            continue
        human.append(1 - value if field[1] else value)
        weight.append(dialogue_weight)
    frame = frame.assign(human=human, weight=weight)
    others = [b.name for b in samples if b.name != sample.name]
    also = f" (also in the run, not used: {', '.join(others)})" if others else ""
    return LabelledObservations(
        frame,
        f"labels of the audit sample {sample.name!r}: {len(weights)} of its "
        f"{len(sample.items)} dialogues labelled{also}",
    )
