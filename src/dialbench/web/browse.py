"""The organiser's view of a run: dialogues filtered as the report's tables break them down
(language, chatbot, judge, issue, overall score) plus source and benchmark, and everything known
about one dialogue. Judges and chatbots are named as `ratings.py` names them, so a link from a
report cell finds exactly the dialogues behind it."""

from __future__ import annotations

from collections import defaultdict
from typing import Literal

from pydantic import Field

from dialbench.issue_labels import ISSUES_PREFIX
from dialbench.ratings import flatten, named_judgments, placed_judgments
from dialbench.schema import (
    Annotation,
    Benchmark,
    Dialogue,
    InjectionFlag,
    Judgment,
    ParseStatus,
    Record,
)
from dialbench.store import RunStore
from dialbench.store_contents import HUMAN

SHOWN_ROWS = 500


class DialogueFilters(Record):
    """Empty fields filter nothing. `issue` and `overall` are read from the judgments of
    `judge` (any judge when empty; `protocol` and `status` narrow which judgments count): a
    dialogue matches when a judge's mean over its ok samples
    flags the issue (>= 0.5) or rounds to that overall score. `seed` is a seed unit
    (`RunStore.seed_units()`): the dialogues grown from one seed (`RunStore.seed_dialogues`)."""

    language: str = ""
    source: str = ""
    chatbot: str = ""
    benchmark: str = ""
    judge: str = ""
    protocol: str = ""
    status: ParseStatus | Literal[""] = Field(default="", description="judged ok, or unscored")
    issue: str = ""
    overall: int | None = Field(default=None, ge=1, le=5)
    seed: str = ""


class DialogueRow(Record):
    id: str
    language: str
    source: str
    chatbot: str
    turns: int
    judgments: int
    annotations: int


class FilterChoices(Record):
    """The values each filter can take in this run, for the filter form."""

    language: list[str]
    source: list[str]
    chatbot: list[str]
    benchmark: list[str]
    judge: list[str]
    protocol: list[str]
    status: list[str]
    issue: list[str]


class DialogueList(Record):
    rows: list[DialogueRow]
    matched: int
    choices: FilterChoices


def chatbot_of(dialogue: Dialogue) -> str:
    return dialogue.participants.assistant or HUMAN


def _judged_values(
    placed: list[tuple[Judgment, str]], filters: DialogueFilters
) -> dict[str, list[dict[str, float]]]:
    """Per dialogue, each matching judge's mean value of every dimension over its ok samples."""
    sums: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for judgment, judge in placed:
        if judgment.result is None or (filters.judge and judge != filters.judge):
            continue
        for dimension, value in flatten(judgment.result):
            if isinstance(value, float):
                sums[(judgment.target.dialogue_id, judge)][dimension].append(value)
    means: dict[str, list[dict[str, float]]] = defaultdict(list)
    for (dialogue_id, _), values in sums.items():
        means[dialogue_id].append({d: sum(v) / len(v) for d, v in values.items()})
    return means


def _matches_scores(judged: list[dict[str, float]], filters: DialogueFilters) -> bool:
    if not (filters.issue or filters.overall):
        return True
    return any(
        (not filters.issue or values.get(f"issues.{filters.issue}", 0.0) >= 0.5)
        and (filters.overall is None or round(values.get("overall", 0.0)) == filters.overall)
        for values in judged
    )


def _choices(
    dialogues: list[Dialogue], benchmarks: list[Benchmark], every: list[tuple[Judgment, str]]
) -> FilterChoices:
    issues = sorted(
        {
            dimension.removeprefix(ISSUES_PREFIX)
            for j, _ in every
            if j.result
            for dimension, _ in flatten(j.result)
            if dimension.startswith(ISSUES_PREFIX)
        }
    )
    return FilterChoices(
        language=sorted({d.language for d in dialogues}),
        source=sorted({d.source for d in dialogues}),
        chatbot=sorted({chatbot_of(d) for d in dialogues}),
        benchmark=sorted(b.name for b in benchmarks),
        judge=sorted({judge for _, judge in every}),
        protocol=sorted({j.protocol for j, _ in every}),
        status=sorted({j.parse_status for j, _ in every}),
        issue=issues,
    )


def dialogue_list(store: RunStore, filters: DialogueFilters) -> DialogueList:
    dialogues = list(store.records(Dialogue))
    every = [(j, p.rater) for j, p in placed_judgments(store)]
    placed = [
        (j, judge)
        for j, judge in every
        if (not filters.protocol or j.protocol == filters.protocol)
        and (not filters.status or j.parse_status == filters.status)
    ]
    benchmarks = list(store.records(Benchmark))
    annotated = defaultdict[str, int](int)
    for annotation in store.records(Annotation):
        annotated[annotation.target.dialogue_id] += 1
    judged_by = defaultdict[str, set[str]](set)
    judgment_counts = defaultdict[str, int](int)
    for judgment, judge in placed:
        judged_by[judgment.target.dialogue_id].add(judge)
        judgment_counts[judgment.target.dialogue_id] += 1
    in_benchmark = {
        item.dialogue_id for b in benchmarks if b.name == filters.benchmark for item in b.items
    }
    scores = _judged_values(placed, filters)
    of_seed = set(store.seed_dialogues(filters.seed)) if filters.seed else set()
    matched = [
        d
        for d in dialogues
        if (not filters.language or d.language == filters.language)
        and (not filters.source or d.source == filters.source)
        and (not filters.chatbot or chatbot_of(d) == filters.chatbot)
        and (not filters.seed or d.id in of_seed)
        and (not filters.benchmark or d.id in in_benchmark)
        and (not filters.judge or filters.judge in judged_by[d.id])
        and (not (filters.protocol or filters.status) or judgment_counts[d.id] > 0)
        and _matches_scores(scores[d.id], filters)
    ]
    rows = [
        DialogueRow(
            id=d.id,
            language=d.language,
            source=d.source,
            chatbot=chatbot_of(d),
            turns=len(d.turns),
            judgments=judgment_counts[d.id],
            annotations=annotated[d.id],
        )
        for d in matched[:SHOWN_ROWS]
    ]
    choices = _choices(dialogues, benchmarks, every)
    return DialogueList(rows=rows, matched=len(matched), choices=choices)


class DialogueView(Record):
    """One dialogue with every judgment (judges named as in the report) and annotation, and
    the text in its turns that addresses a judge, as its judgments recorded it."""

    dialogue: Dialogue
    judgments: list[tuple[str, Judgment]]
    annotations: list[Annotation]
    injection_flags: list[InjectionFlag]


def _flags_of(dialogue_id: str, judgments: list[Judgment]) -> list[InjectionFlag]:
    """This dialogue's flags, once each, in turn order (a judgment of a pair holds the other
    dialogue's too)."""
    found = {
        (flag.turn_index, flag.kind): flag.model_copy(update={"dialogue_id": None})
        for judgment in judgments
        for flag in judgment.injection_flags
        if flag.dialogue_id in (None, dialogue_id)
    }
    return [found[key] for key in sorted(found)]


def dialogue_view(store: RunStore, dialogue_id: str) -> DialogueView | None:
    dialogue = store.get(Dialogue, dialogue_id)
    if dialogue is None:
        return None
    judgments = [(judge, j) for j, judge in named_judgments(store, [dialogue_id])]
    return DialogueView(
        dialogue=dialogue,
        judgments=sorted(judgments, key=lambda pair: (pair[1].protocol, pair[0])),
        annotations=list(store.records(Annotation, dialogue_id=dialogue_id)),
        injection_flags=_flags_of(dialogue_id, [j for _, j in judgments]),
    )
