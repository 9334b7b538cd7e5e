"""Judgments and annotations as ratings: one row per item, rater and dimension, the input of
every agreement statistic, and what the report's tables are built from. One item key, one
language and chatbot lookup, one way to name judges, one way to flatten labels, so dialbench's
own runs and published annotation sets (`io/long_format.py`) are read the same way.

Items are keyed `dialogue_id` (a dialogue), `dialogue_id#turn_index` (one turn, 0-based) or
`dialogue_id|other_dialogue_id` (an ordered pair). Nested labels become dotted dimensions
({"issues": {"unsafe": true}} -> `issues.unsafe`); free-text explanations are not dimensions.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from pydantic import JsonValue

from dialbench.errors import DialbenchError
from dialbench.schema import Annotation, JudgeConfiguration, Judgment, Record, Target
from dialbench.store import RunStore
from dialbench.store_contents import HUMAN

UNKNOWN_LANGUAGE = "und"
TEXT_KEYS = frozenset({"comment", "comments", "reason", "rationale", "explanation", "feedback"})
RaterKind = Literal["human", "judge"]
UNSCORED = "*"


def item_key(target: Target) -> str:
    if target.other_dialogue_id is not None:
        return f"{target.dialogue_id}|{target.other_dialogue_id}"
    if target.turn_index is not None:
        return f"{target.dialogue_id}#{target.turn_index}"
    return target.dialogue_id


def item_target(item_id: str) -> Target:
    """The inverse of `item_key`."""
    if "|" in item_id:
        first, other = item_id.split("|", 1)
        return Target(dialogue_id=first, other_dialogue_id=other)
    dialogue, mark, turn = item_id.rpartition("#")
    if mark and dialogue and turn.isdigit():
        return Target(dialogue_id=dialogue, turn_index=int(turn))
    return Target(dialogue_id=item_id)


def scalar(value: JsonValue) -> float | str | None:
    """Booleans and numbers as floats (True = 1.0), strings as they are; anything else: None."""
    if isinstance(value, bool | int | float):
        return float(value)
    if isinstance(value, str):
        return value
    return None


def leaves(
    labels: Mapping[str, JsonValue], path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], JsonValue]]:
    """The values of nested label dicts, each with its path of keys; keys in TEXT_KEYS (at any
    depth) are skipped."""
    for key, value in labels.items():
        if key in TEXT_KEYS:
            continue
        if isinstance(value, dict):
            yield from leaves(value, (*path, key))
        else:
            yield (*path, key), value


def flatten(labels: Mapping[str, JsonValue]) -> Iterator[tuple[str, float | str]]:
    """Nested label dicts as dotted dimensions, values as `scalar` reads them (those it cannot
    read are left out)."""
    for path, value in leaves(labels):
        if (converted := scalar(value)) is not None:
            yield ".".join(path), converted


class Judged(Protocol):
    """What a judge's name is made of: a `Judgment`, or a store's row of them (`JudgedUnder`)."""

    @property
    def protocol(self) -> str: ...
    @property
    def judge_model(self) -> str: ...
    @property
    def configuration(self) -> JudgeConfiguration | None: ...


@dataclass(frozen=True)
class JudgedUnder:
    """A protocol, judge model and configuration that judged something in a store."""

    protocol: str
    judge_model: str
    configuration: JudgeConfiguration | None


def configuration_of(judgment: Judged) -> str:
    return judgment.configuration.fingerprint if judgment.configuration else "unrecorded"


def configuration_summary(configuration: JudgeConfiguration | None) -> dict[str, str]:
    """A configuration as short readable fields: options, generation parameters, how JSON was
    asked for, re-asks, the prompts' language where not English, the first 8 hex digits of each
    file's sha256, the first 12 of the calibration's where its answers were calibrated, and a
    panel's method and members."""
    if configuration is None:
        return {"options": "(judged before configurations were recorded)"}
    params = {k: v for k, v in configuration.params.items() if v not in (None, [], ())}
    files = sorted(configuration.file_hashes.items())
    calibrated = (
        {"calibration": configuration.calibration[:12]} if configuration.calibration else {}
    )
    panel = configuration.panel
    paneled = {"panel": f"{panel.method} of {', '.join(panel.members)}"} if panel else {}
    return {
        "options": ", ".join(f"{k}={v}" for k, v in configuration.options.items()) or "-",
        "params": ", ".join(f"{k}={v}" for k, v in params.items()),
        "structured_mode": configuration.structured_mode,
        "max_reasks": str(configuration.max_reasks),
        **({"prompt_language": language} if (language := configuration.prompt_language) else {}),
        "files": ", ".join(f"{name} {digest[:8]}" for name, digest in files),
        **calibrated,
        **paneled,
    }


class JudgeNames:
    """How figures name a judge: its model spec, marked `(calibrated)` for answers mapped onto
    the humans' scale (`dialbench calibrate`), followed by its configuration's fingerprint
    where the same model judged the same protocol under several configurations (a calibrated
    judge always has its own beside the judge's); with `compared_protocols`, also by the
    protocol where the same model judged several of them (a figure then sets them side by
    side, where a report shows each protocol apart)."""

    def __init__(self, judgments: Sequence[Judged], compared_protocols: bool = False) -> None:
        seen: dict[tuple[str, str], set[str]] = defaultdict(set)
        protocols: dict[str, set[str]] = defaultdict(set)
        for j in judgments:
            seen[(j.protocol, j.judge_model)].add(configuration_of(j))
            protocols[j.judge_model].add(j.protocol)
        self._several = {key for key, found in seen.items() if len(found) > 1}
        self._several_protocols = {
            model for model, found in protocols.items() if compared_protocols and len(found) > 1
        }

    @classmethod
    def of_store(cls, store: RunStore) -> JudgeNames:
        """The names every judgment of the store has in `placed_judgments(store)` (the report's
        and the dialogue list's), from the store's distinct protocol, judge and configuration
        rows: no judgment is read."""
        return cls(
            [
                JudgedUnder(protocol, judge_model, configuration)
                for protocol, judge_model, configuration in store.judge_configurations()
            ]
        )

    def __call__(self, judgment: Judged) -> str:
        name = judgment.judge_model
        if name in self._several_protocols:
            name = f"{name} ({judgment.protocol})"
        if judgment.configuration is not None and judgment.configuration.calibration:
            name = f"{name} (calibrated)"
        if (judgment.protocol, judgment.judge_model) in self._several:
            return f"{name} [{configuration_of(judgment)}]"
        return name


def choose_judge(
    judgments: Sequence[Judgment],
    wanted: str | None,
    *,
    protocol: str,
    where: str,
    option: str,
    elsewhere: str = "",
) -> str:
    """The judge named `wanted` among these judgments of one protocol (named as `JudgeNames`
    names it: its spec, or `SPEC [c-…]` where it judged under several configurations), or the
    only one; else an error listing those there are, telling which `option` chooses one.
    `where` names the run, `elsewhere` adds judges of other protocols to a wrong name's error."""
    names = JudgeNames(judgments)
    available = sorted({names(j) for j in judgments})
    listed = ", ".join(repr(name) for name in available)
    if wanted is None:
        if len(available) == 1:
            return available[0]
        raise DialbenchError(
            f"several {protocol} judges in {where}: choose one with {option}: {listed}"
        )
    if wanted in available:
        return wanted
    configured = [name for name in available if name.startswith(f"{wanted} [")]
    if configured:
        raise DialbenchError(
            f"judge {wanted!r} judged under several configurations: choose one with {option}: "
            + ", ".join(repr(name) for name in configured)
        )
    raise DialbenchError(
        f"no {protocol} judgments by {wanted!r} in {where}; {protocol} judges: {listed}{elsewhere}"
    )


@dataclass(frozen=True)
class Placed:
    """Where a judgment or annotation falls: its item, language and chatbot, and its rater."""

    item: str
    language: str
    chatbot: str
    rater: str


def _place(target: Target, rater: str, placements: Mapping[str, tuple[str, str | None]]) -> Placed:
    language, chatbot = placements.get(target.dialogue_id, (UNKNOWN_LANGUAGE, None))
    return Placed(item_key(target), language, chatbot or HUMAN, rater)


def placed_judgments(
    store: RunStore, protocols: Sequence[str] = ()
) -> list[tuple[Judgment, Placed]]:
    """The store's judgments (of these protocols, default all) with their place, judges named
    by `JudgeNames`."""
    if isinstance(protocols, str):  # one name is one protocol, not its letters
        protocols = [protocols]
    if protocols:
        judgments = [j for p in protocols for j in store.records(Judgment, protocol=p)]
    else:
        judgments = list(store.records(Judgment))
    names = JudgeNames(judgments, compared_protocols=len(protocols) > 1)
    placements = store.dialogue_placements()
    return [(j, _place(j.target, names(j), placements)) for j in judgments]


def named_judgments(store: RunStore, dialogue_ids: Sequence[str]) -> list[tuple[Judgment, str]]:
    """The judgments of these dialogues (as `Target.dialogue_id`), a dialogue's in the order
    stored, each with its judge named as `placed_judgments(store)` names it: read by the
    dialogues' index, so a page of one dialogue or one seed costs that, not the store."""
    names = JudgeNames.of_store(store)
    return [
        (judgment, names(judgment))
        for dialogue_id in dialogue_ids
        for judgment in store.records(Judgment, dialogue_id=dialogue_id)
    ]


def placed_annotations(
    store: RunStore, include_partial: bool = False
) -> list[tuple[Annotation, Placed]]:
    """The store's annotations with their place; those not `complete` (an annotator still at
    it) only with `include_partial`."""
    placements = store.dialogue_placements()
    return [
        (a, _place(a.target, a.annotator_id, placements))
        for a in store.records(Annotation)
        if a.complete or include_partial
    ]


class Rating(Record):
    """One rater's value for one item on one dimension; None = the judge gave no usable value."""

    item_id: str
    rater: str
    kind: RaterKind
    dimension: str
    value: float | str | None
    language: str = UNKNOWN_LANGUAGE


def human_ratings(store: RunStore, include_partial: bool = False) -> list[Rating]:
    """The store's complete annotations (all, with `include_partial`), one rating per
    annotator, item and dimension."""
    return [
        Rating(
            item_id=p.item, rater=p.rater, kind="human", dimension=d, value=v, language=p.language
        )
        for annotation, p in placed_annotations(store, include_partial)
        for d, v in flatten(annotation.labels)
    ]


def from_store(
    store: RunStore, protocols: Sequence[str] = (), include_partial: bool = False
) -> tuple[list[Rating], list[Judgment]]:
    """Human ratings from complete annotations (all, with `include_partial`) and judge ratings
    from judgments (of the given protocols)."""
    ratings, judgments = judge_ratings(store, protocols)
    return human_ratings(store, include_partial) + ratings, judgments


def judge_ratings(
    store: RunStore, protocols: Sequence[str] = ()
) -> tuple[list[Rating], list[Judgment]]:
    """Ratings from the judgments of the given protocols, and those judgments; a judge that
    judged under several configurations is one rater per configuration. With no protocol
    given, the run must hold one: judges of different protocols are compared only on request."""
    ratings: list[Rating] = []
    placed = placed_judgments(store, protocols)
    found = {j.protocol for j, _ in placed}
    if not protocols and len(found) > 1:
        raise DialbenchError(
            f"the run holds judgments of several protocols ({', '.join(sorted(found))}); "
            "choose one with --protocol, or repeat it to compare several"
        )
    for judgment, p in placed:
        values = flatten(judgment.result) if judgment.result else [(UNSCORED, None)]
        ratings += [
            Rating(
                item_id=p.item,
                rater=p.rater,
                kind="judge",
                dimension=d,
                value=v,
                language=p.language,
            )
            for d, v in values
        ]
    return ratings, [j for j, _ in placed]
