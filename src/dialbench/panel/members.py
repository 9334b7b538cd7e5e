"""A panel's members as the store holds them: their judgments of one protocol, which of them
answered each item (an `ok` judgment), and their answers as ratings, with the JSON type each
dimension was answered in so the panel answers in the same one."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from dialbench.errors import DialbenchError
from dialbench.panel.config import PANEL_PREFIX, PanelConfig
from dialbench.ratings import (
    RaterKind,
    Rating,
    choose_judge,
    flatten,
    leaves,
    placed_judgments,
)
from dialbench.schema import Judgment, Target
from dialbench.store import RunStore

ValueKind = str  # "bool", "int" or "other": how a panel's value is written back


@dataclass
class Members:
    protocol: str
    names: list[str]
    models: dict[str, str] = field(default_factory=dict)  # member -> its model spec
    targets: dict[str, Target] = field(default_factory=dict)  # item -> what it targets
    languages: dict[str, str] = field(default_factory=dict)
    chatbots: dict[str, str] = field(default_factory=dict)
    answered: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    ratings: list[Rating] = field(default_factory=list)  # as judges' ratings
    kinds: dict[str, ValueKind] = field(default_factory=dict)

    def as_ratings(self, kind: RaterKind) -> list[Rating]:
        """The members' answers as ratings of this kind: `human` to measure their agreement
        with metaeval's humans' statistics, `judge` to set them against the humans."""
        return [rating.model_copy(update={"kind": kind}) for rating in self.ratings]


def _protocol(store: RunStore, wanted: str | None, run: Path) -> str:
    if wanted is not None:
        return wanted
    found = sorted(str(protocol) for protocol, _ in store.group_counts(Judgment, "protocol"))
    if len(found) == 1:
        return found[0]
    if not found:
        raise DialbenchError(f"{run} holds no judgments to make a panel of (dialbench judge {run})")
    raise DialbenchError(
        f"{run} holds judgments of several protocols ({', '.join(found)}): choose one with "
        "--protocol"
    )


def _kind(values: list[object]) -> ValueKind:
    if all(isinstance(v, bool) for v in values):
        return "bool"
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return "int"
    return "other"


def read_members(store: RunStore, config: PanelConfig, run: Path) -> Members:
    """The members' judgments of the protocol, each member named as the figures name it; an
    error naming the judges there are where a member is not among them."""
    protocol = _protocol(store, config.protocol, run)
    placed = placed_judgments(store, [protocol])
    if not placed:
        raise DialbenchError(f"{run} holds no judgments of protocol {protocol}")
    judgments = [j for j, _ in placed]
    names = [
        choose_judge(judgments, wanted, protocol=protocol, where=str(run), option="--judge")
        for wanted in config.judges
    ]
    if len(set(names)) < len(names):
        raise DialbenchError(f"--judge names one judge twice: {', '.join(config.judges)}")
    own = [name for name in names if name.startswith(PANEL_PREFIX + config.name)]
    if own:
        raise DialbenchError(f"panel {config.name} cannot be a member of itself ({own[0]})")
    members = Members(protocol=protocol, names=names)
    raw: dict[str, list[object]] = defaultdict(list)
    for judgment, place in placed:
        if place.rater not in names:
            continue
        members.models[place.rater] = judgment.judge_model
        members.targets.setdefault(place.item, judgment.target)
        members.languages.setdefault(place.item, place.language)
        members.chatbots.setdefault(place.item, place.chatbot)
        if judgment.parse_status != "ok" or judgment.result is None:
            continue
        members.answered[place.item].add(place.rater)
        for dimension, value in flatten(judgment.result):
            members.ratings.append(
                Rating(
                    item_id=place.item,
                    rater=place.rater,
                    kind="judge",
                    dimension=dimension,
                    value=value,
                    language=place.language,
                )
            )
        for path, leaf in leaves(judgment.result):
            raw[".".join(path)].append(leaf)
    members.kinds = {dimension: _kind(values) for dimension, values in raw.items()}
    return members
