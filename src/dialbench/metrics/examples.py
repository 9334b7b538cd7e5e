"""Training pairs (context, response, target) from the dialogues and annotations of run stores.

- graded: the mean of the human labels of a turn, each label mapped to a number (DBDC3's 30
  breakdown labels per system turn: O = 1, T = 0.5, X = 0 gives a graded sensibleness);
- nsp: the real next turn (1) against a random turn of the same language that fails the
  token-coverage test (0);
- vsp: a turn lightly perturbed (1) against the same turn reordered, with words dropped or
  repeated (0); the response alone, no context;
- judge: the mean score of a trusted judge's `ok` judgments of a turn (its samples averaged),
  so the metric distils the judge; an unscored judgment is never a target.

A metric reads the two sides' utterances only: a tool turn is never a response, nor part of the
context before one. The packaged metrics learned from two-speaker dialogues, whose features
(the last context turn, the same speaker's earlier turns) and speaker tokens know no tool; a
turn keeps its index in the dialogue, so its judgment points at the right turn all the same.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import chain
from pathlib import Path

from pydantic import JsonValue

from dialbench.errors import DialbenchError
from dialbench.io.importer import ImportOptions, load_records
from dialbench.metrics.config import NegativeKind, TeacherConfig
from dialbench.metrics.words import NEGATIVE, POSITIVE, cut, perturb, random_negative
from dialbench.schema import Annotation, Dialogue, Judgment, base_language, speaker_turns
from dialbench.store import RunStore


@dataclass(frozen=True)
class Example:
    dialogue_id: str
    turn_index: int
    language: str
    previous: tuple[tuple[str, str], ...]
    """(role, text) of every earlier utterance (tool turns left out), oldest first."""
    role: str
    response: str
    target: float


def turn_example(dialogue: Dialogue, index: int, target: float = 0.0) -> Example:
    turn = dialogue.turns[index]
    return Example(
        dialogue_id=dialogue.id,
        turn_index=index,
        language=dialogue.language,
        previous=tuple((t.role, t.text) for t in speaker_turns(dialogue.turns[:index])),
        role=turn.role,
        response=turn.text,
        target=target,
    )


def utterance_indices(dialogue: Dialogue) -> list[int]:
    """The indices of the dialogue's utterances: its turns but the tool turns."""
    return [i for i, turn in enumerate(dialogue.turns) if turn.role != "tool"]


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


def targeted_examples(
    dialogues: Sequence[Dialogue], targets: Mapping[tuple[str, int], float]
) -> list[Example]:
    """One example per turn that has a target, in dialogue and turn order."""
    return [
        turn_example(d, i, targets[(d.id, i)])
        for d in dialogues
        for i in utterance_indices(d)
        if (d.id, i) in targets
    ]


def graded_examples(
    stores: Sequence[RunStore],
    dialogues: Sequence[Dialogue],
    dimension: str,
    values: Mapping[str, float],
) -> list[Example]:
    targets: dict[tuple[str, int], float] = {}
    for store in stores:
        targets.update(human_targets(store.records(Annotation), dimension, values))
    return targeted_examples(dialogues, targets)


class TeacherError(DialbenchError):
    """The runs cannot serve the configured teacher; `field` names the teacher's field at fault."""

    def __init__(self, field: str, message: str) -> None:
        self.field, self.message = field, message
        super().__init__(f"teacher.{field}: {message}")


@dataclass(frozen=True)
class TeacherLabels:
    teacher: TeacherConfig
    """As configured, with the judge and configuration the targets came from filled in."""
    targets: dict[tuple[str, int], float]
    """(dialogue id, turn index) -> the mean score of the teacher's ok samples of that turn."""


def _score(result: Mapping[str, JsonValue] | None, dimension: str) -> float | None:
    """The number at a dotted result key (`issues.repetitive`), a yes/no flag as 1/0."""
    value: JsonValue = dict(result or {})
    for part in dimension.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return float(value) if isinstance(value, int | float) else None


def _one(found: Mapping[str, str], field: str, what: str, named: str | None) -> str:
    """The single value the runs hold (`found`: each value and how to show it), or the one
    named; else a TeacherError listing them."""
    shown = ", ".join(found[value] for value in sorted(found))
    if named is not None:
        if named not in found:
            raise TeacherError(field, f"no judgments with {named!r}; the runs hold {shown}")
        return named
    if len(found) > 1:
        raise TeacherError(field, f"the runs hold judgments of several {what}: {shown}; name one")
    return next(iter(found))


def teacher_labels(stores: Sequence[RunStore], teacher: TeacherConfig) -> TeacherLabels:
    """Targets from one judge's judgments of single turns under one protocol and configuration.

    A dialogue-level teacher is refused: its score says how the whole conversation went, not
    how one turn did, and DiQAD's classifiers (`metric diqad train --protocol`) distil those."""
    protocol = teacher.protocol
    judged = [j for store in stores for j in store.records(Judgment, protocol=protocol)]
    if not judged:
        held = sorted({str(row[0]) for s in stores for row in s.group_counts(Judgment, "protocol")})
        raise TeacherError(
            "protocol",
            f"the runs hold no judgments of {protocol!r}"
            + (f" (they hold {', '.join(held)})" if held else " (they hold no judgments)"),
        )
    turns = [j for j in judged if j.target.kind == "turn"]
    if not turns:
        raise TeacherError(
            "protocol",
            f"{protocol} judges whole dialogues (or pairs), not turns, and a turn metric learns "
            "one score per turn: judge turns (submetrics, a turn protocol), or distil a dialogue "
            f"judge with `dialbench metric diqad train RUN --protocol {protocol}`",
        )
    judge = _one({j.judge_model: j.judge_model for j in turns}, "judge", "judges", teacher.judge)
    turns = [j for j in turns if j.judge_model == judge]
    configurations = {
        j.configuration.fingerprint: f"{j.configuration.fingerprint} (options "
        f"{json.dumps(j.configuration.options, sort_keys=True)})"
        for j in turns
        if j.configuration is not None
    }
    if any(j.configuration is None for j in turns):
        configurations[""] = "judgments stored before configurations were recorded"
    configuration = _one(configurations, "configuration", "configurations", teacher.configuration)
    scores: dict[tuple[str, int], list[float]] = defaultdict(list)
    for j in turns:
        if (j.configuration.fingerprint if j.configuration else "") != configuration:
            continue
        score = _score(j.result, teacher.dimension) if j.parse_status == "ok" else None
        if score is not None and j.target.turn_index is not None:
            scores[(j.target.dialogue_id, j.target.turn_index)].append(score)
    if not scores:
        keys = sorted({k for j in turns if j.result for k in j.result})
        raise TeacherError(
            "dimension",
            f"no ok judgment of {protocol} by {judge} has a number at {teacher.dimension!r}"
            + (f"; its results hold {', '.join(keys)}" if keys else ""),
        )
    resolved = teacher.model_copy(update={"judge": judge, "configuration": configuration or None})
    return TeacherLabels(resolved, {k: sum(v) / len(v) for k, v in scores.items()})


def _negative(
    kind: NegativeKind,
    texts: Sequence[str],
    roles: Sequence[str],
    at: int,
    language: str,
    pool: Sequence[str],
    rng: random.Random,
    max_coverage: float,
) -> str | None:
    """A negative of this kind for the utterance at `at` (texts and roles: the dialogue's
    utterances), or None where the kind does not apply (no earlier turn of the speaker, a reply
    too short to cut)."""
    real = texts[at]
    if kind == "random":
        return random_negative(real, pool, language, rng, max_coverage)
    if kind == "same_dialogue":
        options = [t for j, t in enumerate(texts) if j not in (at - 1, at) and t != real]
    elif kind == "repeat":
        options = [t for j, t in enumerate(texts[:at]) if roles[j] == roles[at] and t != real]
    elif kind == "echo":
        options = [texts[at - 1]] if texts[at - 1] != real else []
    else:
        return cut(real, language, rng.uniform(0.33, 0.5))
    return rng.choice(options) if options else None


def nsp_examples(
    dialogues: Sequence[Dialogue],
    seed: int,
    max_coverage: float = 0.5,
    kinds: Sequence[NegativeKind] = ("random",),
) -> list[Example]:
    """Each real next turn (1) and one negative (0), its kind drawn from `kinds` among those
    that apply to the turn: one negative per real turn keeps the two classes even. With one
    kind the draws are those of the random negatives alone, as before hard ones existed."""
    rng = random.Random(seed)
    pools: dict[str, list[str]] = defaultdict(list)
    for d in dialogues:
        pools[base_language(d.language)] += [
            t.text for t in speaker_turns(d.turns) if t.text.strip()
        ]
    examples = []
    for d in dialogues:
        pool = pools[base_language(d.language)]
        indices = utterance_indices(d)
        texts = [d.turns[i].text for i in indices]
        roles = [d.turns[i].role for i in indices]
        for at, i in enumerate(indices[1:], 1):
            real = turn_example(d, i, 1.0)
            examples.append(real)
            order = rng.sample(list(kinds), len(kinds)) if len(kinds) > 1 else kinds
            for kind in order:
                args = (texts, roles, at, d.language, pool, rng, max_coverage)
                negative = _negative(kind, *args)
                if negative is not None:
                    examples.append(replace(real, response=negative, target=0.0))
                    break
    return examples


def vsp_examples(dialogues: Sequence[Dialogue], seed: int) -> list[Example]:
    rng = random.Random(seed)
    examples = []
    for d in dialogues:
        for i in utterance_indices(d):
            turn = d.turns[i]
            if not turn.text.strip():
                continue
            base = Example(d.id, i, d.language, (), turn.role, turn.text, 1.0)
            good = perturb(turn.text, d.language, rng.choice(POSITIVE), rng)
            bad = perturb(turn.text, d.language, rng.choice(NEGATIVE), rng)
            examples.append(replace(base, response=good))
            if bad != turn.text:
                examples.append(replace(base, response=bad, target=0.0))
    return examples
