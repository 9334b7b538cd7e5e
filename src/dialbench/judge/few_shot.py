"""Few-shot from reviewed examples: the humans' labels of some items, shown to a judge as the
answers to those items before the item it judges (`few_shot=N`, `JudgeProtocol.use_examples`).

An example is one target (a chatbot turn, a whole dialogue) with every complete human annotation
of it: reviews of a judge's verdicts (`Annotation.review_of`) and imported labels alike. Several
annotators make one example: per dimension the median of their values (booleans as 0 and 1, so
the majority, a tie counting as true), which a protocol rounds to its nearest allowed value
(halves up, `nearest`). Labels that are not numbers or booleans are left out.

The stated rule, per language of the examples' dialogues and per question: the examples that
answer the question are grouped by the value they show (a score; with or without issues), the
groups visited from the ends inward (lowest, highest, second lowest, second highest, ...),
taking one example from each in turn, each group's examples in the order of the sha256 of their
ids, until N are taken or none is left (`choose`). The dialogues the chosen examples come from
are never judged under them, so few-shot figures are held out by construction.
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from itertools import chain, zip_longest
from pathlib import Path

from pydantic import Field, JsonValue

from dialbench.hashing import content_hash, sha256_text
from dialbench.llm.base import Message
from dialbench.ratings import flatten, item_key
from dialbench.schema import Annotation, Dialogue, Record, Target
from dialbench.store import RunStore

EXAMPLES_KEY = "few_shot_examples"
ID_SEPARATOR = "+"


class HumanExample(Record):
    """One target the humans labelled completely, with their labels aggregated."""

    id: str = Field(description="the ids of the annotations it aggregates, joined by '+'")
    dialogue: Dialogue
    target: Target
    labels: dict[str, float] = Field(description="dotted dimension -> the humans' median")

    @property
    def language(self) -> str:
        return self.dialogue.language


def _median(values: list[float | str]) -> float | None:
    numbers = [v for v in values if isinstance(v, float)]
    return statistics.median(numbers) if numbers and len(numbers) == len(values) else None


def human_examples(
    annotations: Iterable[Annotation], dialogues: Mapping[str, Dialogue]
) -> list[HumanExample]:
    """One example per annotated target of a known dialogue, from its complete annotations."""
    by_target: dict[str, list[Annotation]] = defaultdict(list)
    for annotation in annotations:
        if annotation.complete and annotation.target.dialogue_id in dialogues:
            by_target[item_key(annotation.target)].append(annotation)
    examples = []
    for group in by_target.values():
        values: dict[str, list[float | str]] = defaultdict(list)
        for annotation in group:
            for dimension, value in flatten(annotation.labels):
                values[dimension].append(value)
        labels = {d: m for d, v in values.items() if (m := _median(v)) is not None}
        target = group[0].target
        examples.append(
            HumanExample(
                id=ID_SEPARATOR.join(sorted(a.id for a in group)),
                dialogue=dialogues[target.dialogue_id],
                target=target,
                labels=labels,
            )
        )
    return examples


def examples_in_run(run_dir: str | Path) -> list[HumanExample]:
    """The examples a run directory's complete annotations make (only their dialogues read: a
    pipeline plans a few-shot stage by them)."""
    with RunStore.open(run_dir, create=False) as store:
        annotations = [a for a in store.records(Annotation) if a.complete]
        wanted = {a.target.dialogue_id for a in annotations}
        found = (store.get(Dialogue, dialogue_id) for dialogue_id in wanted)
        dialogues = {d.id: d for d in found if d is not None}
    return human_examples(annotations, dialogues)


def nearest(value: float, allowed: Sequence[int]) -> int:
    """The allowed value nearest `value`, the higher of two as near (a median of 3 and 4 is 4)."""
    return min(allowed, key=lambda a: (abs(a - value), -a))


class ExampleAnswer(Record):
    """The humans' answer to one question, in its schema, and the value the rule spreads over
    (a score; 1 with issues and 0 without)."""

    answer: dict[str, JsonValue]
    value: float


class Shot(Record):
    """An example as a question shows it: the item exactly as the question shows its own, and
    the humans' answer in the question's schema."""

    example_id: str
    dialogue_id: str
    value: float
    item: Message
    answer: Message

    @classmethod
    def of(cls, example: HumanExample, item: Message, answer: ExampleAnswer) -> Shot:
        shown = json.dumps(answer.answer, ensure_ascii=False)
        return cls(
            example_id=example.id,
            dialogue_id=example.target.dialogue_id,
            value=answer.value,
            item=item,
            answer=Message(role="assistant", content=shown),
        )


def choose(shots: Sequence[Shot], n: int) -> list[Shot]:
    """The stated rule (module docstring): spread over the values from the ends inward, then
    by the sha256 of the example ids."""
    groups: dict[float, list[Shot]] = defaultdict(list)
    for shot in sorted(shots, key=lambda s: sha256_text(s.example_id)):
        groups[shot.value].append(shot)
    values = sorted(groups)
    inward = [values[i // 2] if i % 2 == 0 else values[-1 - i // 2] for i in range(len(values))]
    turns = zip_longest(*(groups[value] for value in inward))
    return [shot for shot in chain.from_iterable(turns) if shot is not None][:n]


class ChosenExamples(Record):
    """The examples a protocol shows, by language and question, and how many it asked for."""

    wanted: dict[str, int] = Field(description="question -> N")
    shots: dict[str, dict[str, list[Shot]]] = Field(description="language -> question -> shots")

    def ids(self) -> dict[str, dict[str, list[str]]]:
        """What a judgment's configuration records: the example ids by language and question."""
        return {
            language: {question: [s.example_id for s in shots] for question, shots in by.items()}
            for language, by in sorted(self.shots.items())
        }

    def sha256(self) -> str:
        """The hash of everything shown: a relabelled or edited example changes it (an
        annotation's id stays when its labels change)."""
        return content_hash(self.model_dump(mode="json")["shots"])

    def dialogue_ids(self) -> set[str]:
        return {s.dialogue_id for by in self.shots.values() for ss in by.values() for s in ss}

    def messages(self, language: str, question: str) -> list[Message]:
        """The examples of one question in one language as prior user/assistant turns."""
        shots = self.shots.get(language, {}).get(question, [])
        return [message for shot in shots for message in (shot.item, shot.answer)]


class FewShotResult(Record):
    """What few-shot judging showed and held out, for the run's summary."""

    source: str = Field(description="where the examples came from")
    wanted: dict[str, int]
    chosen: dict[str, dict[str, list[str]]] = Field(description="language -> question -> ids")
    languages: list[str] = Field(description="the languages of the judged dialogues")
    held_out: list[str] = Field(description="the dialogues the examples come from: not judged")

    def lines(self) -> list[str]:
        """Once per judged language: the examples shown, fewer than asked, or none (zero-shot)."""
        lines = [
            f"few-shot from {self.source}: up to {max(self.wanted.values())} reviewed "
            f"example(s) of {', '.join(self.wanted)} per language; the {len(self.held_out)} "
            "dialogue(s) they come from are not judged under them"
        ]
        for language in self.languages:
            chosen = self.chosen.get(language, {})
            if not chosen:
                lines.append(f"  {language}: no reviewed example: zero-shot")
                continue
            shown = []
            for question, n in self.wanted.items():
                got = len(chosen.get(question, []))
                shown.append(f"{question} {got}" + (f" (all it has of {n})" if got < n else ""))
            lines.append(f"  {language}: " + ", ".join(shown))
        return lines
