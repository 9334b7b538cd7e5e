"""A judge's answers as calibration reads them: for each judge under each configuration, every
numeric dimension's value per item, the mean over its samples (a boolean judge's share of
`true`, an expected score's mean), with the item's language and target."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

import pandas as pd

from dialbench.ratings import Placed, configuration_of, flatten
from dialbench.schema import JudgeConfiguration, Judgment, Target


@dataclass
class JudgeAnswers:
    """One judge under one configuration of one protocol. `binary` names the dimensions it
    answered with 0 and 1 only (booleans): their mean is a share, and a share of at least one
    half is the judge's own decision, as metaeval takes the majority of its samples."""

    judge_model: str
    configuration: str
    protocol: str
    settings: JudgeConfiguration | None
    targets: dict[str, Target] = field(default_factory=dict)
    languages: dict[str, str] = field(default_factory=dict)
    values: dict[str, pd.Series] = field(default_factory=dict)
    binary: set[str] = field(default_factory=set)
    in_labels: set[str] = field(default_factory=set)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.judge_model, self.configuration, self.protocol)


def judge_answers(placed: Sequence[tuple[Judgment, Placed]]) -> list[JudgeAnswers]:
    """The judgments grouped by judge and configuration; unscored ones give no value."""
    groups: dict[tuple[str, str, str], JudgeAnswers] = {}
    samples: dict[tuple[str, str, str], dict[str, dict[str, list[float | str]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(list))
    )
    for judgment, place in placed:
        key = (judgment.judge_model, configuration_of(judgment), judgment.protocol)
        if key not in groups:
            groups[key] = JudgeAnswers(*key, settings=judgment.configuration)
        answers = groups[key]
        answers.targets.setdefault(place.item, judgment.target)
        answers.languages.setdefault(place.item, place.language)
        for dimension, value in flatten(judgment.result or {}):
            samples[key][dimension][place.item].append(value)
    for key, answers in groups.items():
        for dimension, by_item in samples[key].items():
            every = [v for values in by_item.values() for v in values]
            if not all(isinstance(v, float) for v in every):
                answers.in_labels.add(dimension)
                continue
            if set(every) <= {0.0, 1.0}:
                answers.binary.add(dimension)
            answers.values[dimension] = pd.Series(
                {item: sum(map(float, values)) / len(values) for item, values in by_item.items()},
                dtype=float,
            )
    return sorted(groups.values(), key=lambda a: a.key)
