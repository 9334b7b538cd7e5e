"""A judge of the bundled DBDC3 sample written without a model: its sensibleness of each
labelled chatbot turn is a convex distortion of the 30 annotators' mean breakdown position
(X 0, T 1, O 2) plus seeded noise, stored as a real Judgment of the submetrics protocol."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np

from dialbench.ratings import item_key, item_target
from dialbench.schema import Annotation, JudgeConfiguration, Judgment
from dialbench.store import RunStore

JUDGE = "local:synthetic"
CONFIGURATION = JudgeConfiguration(
    options={"turns": "all", "scoring": "expected", "dimensions": "sensibleness"}
)
POSITION = {"X": 0, "T": 1, "O": 2}
FIT = ("--pair", "breakdown=sensibleness", "--scale", "breakdown=ordinal:X,T,O")


def mean_positions(run: Path) -> dict[str, float]:
    """Each labelled turn's mean breakdown position over its annotators, by item key."""
    positions: dict[str, list[int]] = defaultdict(list)
    with RunStore.open(run, create=False) as store:
        for annotation in store.records(Annotation):
            label = str(annotation.labels["breakdown"])
            positions[item_key(annotation.target)].append(POSITION[label])
    return {item: float(np.mean(found)) for item, found in positions.items()}


def judgments(
    means: dict[str, float], configuration: JudgeConfiguration = CONFIGURATION
) -> list[Judgment]:
    rng = np.random.default_rng(0)
    sensibleness = {
        item: round(float(np.clip(1 + 4 * (mean / 2) ** 3 + rng.normal(0, 0.4), 1, 5)), 3)
        for item, mean in sorted(means.items())
    }
    return [
        Judgment(
            protocol="submetrics",
            judge_model=JUDGE,
            target=item_target(item),
            configuration=configuration,
            result={"sensibleness": value},
            parse_status="ok",
        )
        for item, value in sensibleness.items()
    ]


def add_judgments(run: Path, found: list[Judgment]) -> None:
    with RunStore.open(run) as store, store.invocation("judge") as record:
        store.add(found, record)
