"""Training pairs (context, response, target) from the dialogues and annotations of run stores.

- graded: the mean of the human labels of a turn, each label mapped to a number (DBDC3's 30
  breakdown labels per system turn: O = 1, T = 0.5, X = 0 gives a graded sensibleness);
- nsp: the real next turn (1) against a random turn of the same language that fails the
  token-coverage test (0);
- vsp: a turn lightly perturbed (1) against the same turn reordered, with words dropped or
  repeated (0); the response alone, no context.
"""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from pathlib import Path

from pydantic import JsonValue

from dialbench.io.formats import ImportOptions, load_records
from dialbench.metrics.words import NEGATIVE, POSITIVE, perturb, random_negative
from dialbench.schema import Annotation, Dialogue, base_language
from dialbench.store import RunStore


@dataclass(frozen=True)
class Example:
    dialogue_id: str
    turn_index: int
    language: str
    previous: tuple[tuple[str, str], ...]
    """(role, text) of every earlier turn, oldest first."""
    role: str
    response: str
    target: float


def turn_example(dialogue: Dialogue, index: int, target: float = 0.0) -> Example:
    turn = dialogue.turns[index]
    return Example(
        dialogue_id=dialogue.id,
        turn_index=index,
        language=dialogue.language,
        previous=tuple((t.role, t.text) for t in dialogue.turns[:index]),
        role=turn.role,
        response=turn.text,
        target=target,
    )


def held_out(dialogue_id: str, fraction: float, seed: int) -> bool:
    """Whether a dialogue is in the held-out share: by dialogue, never by turn, and stable."""
    digest = hashlib.sha256(f"{seed}:{dialogue_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < fraction


def human_targets(
    annotations: Iterable[Annotation], dimension: str, values: Mapping[str, float]
) -> dict[tuple[str, int], float]:
    """(dialogue id, turn index) -> the mean of its annotators' mapped labels."""
    sums: dict[tuple[str, int], list[float]] = defaultdict(list)
    for annotation in annotations:
        label: JsonValue = annotation.labels.get(dimension)
        target = annotation.target
        if target.turn_index is None or target.other_dialogue_id is not None:
            continue
        if label is not None and str(label) in values:
            sums[(target.dialogue_id, target.turn_index)].append(values[str(label)])
    return {key: sum(v) / len(v) for key, v in sums.items()}


def file_dialogues(files: Sequence[Path], language: str | None) -> Iterator[Dialogue]:
    """Dialogues from files in any format `dialbench import` reads, validated the same way."""
    for path in files:
        for _, record in load_records(path, ImportOptions(language=language)):
            assert isinstance(record, Dialogue)
            yield record


def load_dialogues(
    stores: Sequence[RunStore], languages: Sequence[str], extra: Iterable[Dialogue] = ()
) -> list[Dialogue]:
    wanted = {base_language(lang) for lang in languages}
    found: dict[str, Dialogue] = {}
    for dialogue in chain((d for store in stores for d in store.records(Dialogue)), extra):
        if not wanted or base_language(dialogue.language) in wanted:
            found.setdefault(dialogue.id, dialogue)
    return [found[key] for key in sorted(found)]


def graded_examples(
    stores: Sequence[RunStore],
    dialogues: Sequence[Dialogue],
    dimension: str,
    values: Mapping[str, float],
) -> list[Example]:
    targets: dict[tuple[str, int], float] = {}
    for store in stores:
        targets.update(human_targets(store.records(Annotation), dimension, values))
    return [
        turn_example(d, i, targets[(d.id, i)])
        for d in dialogues
        for i in range(len(d.turns))
        if (d.id, i) in targets
    ]


def nsp_examples(
    dialogues: Sequence[Dialogue], seed: int, max_coverage: float = 0.5
) -> list[Example]:
    rng = random.Random(seed)
    pools: dict[str, list[str]] = defaultdict(list)
    for d in dialogues:
        pools[base_language(d.language)] += [t.text for t in d.turns if t.text.strip()]
    examples = []
    for d in dialogues:
        pool = pools[base_language(d.language)]
        for i in range(1, len(d.turns)):
            real = turn_example(d, i, 1.0)
            examples.append(real)
            negative = random_negative(real.response, pool, d.language, rng, max_coverage)
            if negative is not None:
                examples.append(Example(**{**real.__dict__, "response": negative, "target": 0.0}))
    return examples


def vsp_examples(dialogues: Sequence[Dialogue], seed: int) -> list[Example]:
    rng = random.Random(seed)
    examples = []
    for d in dialogues:
        for i, turn in enumerate(d.turns):
            if not turn.text.strip():
                continue
            base = Example(d.id, i, d.language, (), turn.role, turn.text, 1.0)
            good = perturb(turn.text, d.language, rng.choice(POSITIVE), rng)
            bad = perturb(turn.text, d.language, rng.choice(NEGATIVE), rng)
            examples.append(Example(**{**base.__dict__, "response": good}))
            if bad != turn.text:
                examples.append(Example(**{**base.__dict__, "response": bad, "target": 0.0}))
    return examples
