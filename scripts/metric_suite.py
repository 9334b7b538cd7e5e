"""The development suite the packaged metrics are chosen by: several domains and languages, built
only from data the project may train on (DBDC3, MuTual, the packaged corpora, perturbations of
them), never from the human-rated dialogue-evaluation sets metrics are judged by (DSTC10 /
xDial-Eval, FED, USR, GRADE, Zhao, Gupta, ConTurE) nor customer-support sets with human labels.

Every set is held out from every variant's training (by dialogue), scored per language:

- DBDC3 held-out dialogues (chit-chat; human: the 30 raters' mean breakdown; Pearson);
- the same, ten English ones machine-translated (machine-translated human; Pearson);
- DBDC3 held-out: real vs broken reply (constructed: words shuffled, dropped or repeated; AUROC);
- MuTual, chitchat-dataset and chatterbot-corpus held-out: real vs random next turn, and real
  vs an on-topic negative (a turn of the same dialogue, a repeat, a cut reply, an echo; AUROC).

The suite's score is the mean over sets of each set's mean over its languages, a Pearson r as it
is and an AUROC as 2·AUROC − 1 (both 0 at chance, 1 at perfect): one set or language cannot
decide alone.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
from metric_data import (
    MUTUAL,
    ROOT,
    hash_rank,
    is_held_out,
)
from scipy.stats import pearsonr
from sklearn.metrics import roc_auc_score

from dialbench import Dialogue
from dialbench.metrics.config import NEGATIVE_KINDS
from dialbench.metrics.examples import (
    Example,
    file_dialogues,
    nsp_examples,
    turn_example,
)
from dialbench.metrics.packaged import CardFigure, Labels
from dialbench.metrics.words import NEGATIVE, perturb
from dialbench.schema import base_language

DBDC_MT = ROOT / "scripts" / "data" / "dbdc3_heldout_mt.jsonl"
"""Ten held-out English DBDC3 dialogues translated into zh de fr pt es by the packaged 0.5B."""
MT_DIALOGUES = 10
HARD = tuple(kind for kind in NEGATIVE_KINDS if kind != "random")
CAP = 2000
"""Items per set and language at most (by a hash of the example): the suite's cost stays
minutes on two cores, whatever the corpora grow to."""


@dataclass(frozen=True)
class DevSet:
    name: str
    domain: str
    labels: Labels
    measure: Literal["pearson", "auroc"]
    examples: list[Example]


def _capped(examples: Sequence[Example], cap: int) -> list[Example]:
    by_language: dict[str, list[Example]] = defaultdict(list)
    for e in examples:
        by_language[base_language(e.language)].append(e)
    kept = []
    for rows in by_language.values():
        key = lambda e: hash_rank(f"{e.dialogue_id}:{e.turn_index}:{e.response}")  # noqa: E731
        kept += sorted(rows, key=key)[:cap] if len(rows) > cap else rows
    return kept


def mt_dialogues(dbdc: Sequence[Dialogue], count: int = MT_DIALOGUES) -> list[Dialogue]:
    """The held-out English dialogues the committed translations are of: the first MT_DIALOGUES
    (or fewer) by a hash of their id."""
    english = [d for d in dbdc if d.language == "en" and is_held_out(d.id)]
    return sorted(english, key=lambda d: hash_rank(d.id))[: min(count, MT_DIALOGUES)]


def first_dialogues(examples: Sequence[Example], count: int | None) -> list[Example]:
    """The examples of the first `count` dialogues of each language by a hash of their id (all
    when None): whole dialogues, whose turns share their context's texts."""
    if count is None:
        return list(examples)
    by_language: dict[str, set[str]] = defaultdict(set)
    for e in examples:
        by_language[base_language(e.language)].add(e.dialogue_id)
    kept = {d for ids in by_language.values() for d in sorted(ids, key=hash_rank)[:count]}
    return [e for e in examples if e.dialogue_id in kept]


def translated_examples(
    dialogues: Sequence[Dialogue], targets: dict[tuple[str, int], float]
) -> list[Example]:
    """The dialogues in every language of the committed translations, scored turns only; a
    dialogue with an untranslated turn is left out of that language."""
    rows = [json.loads(line) for line in DBDC_MT.read_text(encoding="utf-8").splitlines()]
    into = {row["en"]: row for row in rows}
    examples = []
    for language in ("en", "zh", "de", "fr", "pt", "es"):
        for d in dialogues:
            texts = [into.get(t.text, {}).get(language) for t in d.turns]
            if any(text is None for text in texts):
                continue
            turns = [
                t.model_copy(update={"text": text}) for t, text in zip(d.turns, texts, strict=True)
            ]
            copy = d.model_copy(update={"language": language, "turns": turns})
            examples += [
                turn_example(copy, i, targets[(d.id, i)])
                for i in range(len(turns))
                if (d.id, i) in targets
            ]
    return examples


def broken_replies(examples: Sequence[Example], seed: int) -> list[Example]:
    """Each held-out chatbot turn as it is (1) and broken (0): words shuffled, a third dropped,
    or one repeated in place, its context unchanged."""
    rng = random.Random(seed)
    out = []
    for e in examples:
        broken = perturb(e.response, e.language, rng.choice(NEGATIVE), rng)
        if broken != e.response:
            out += [replace(e, target=1.0), replace(e, response=broken, target=0.0)]
    return out


def build(
    dbdc: Sequence[Dialogue],
    graded_held: Sequence[Example],
    corpora_held: dict[str, list[Dialogue]],
    targets: dict[tuple[str, int], float],
    cap: int = CAP,
    dialogues: int | None = None,
) -> list[DevSet]:
    """Every set of the suite. `corpora_held`: each corpus's held-out dialogues by its name;
    `cap`: items per constructed set and language; `dialogues`: the human-labelled sets' first
    dialogues per language (all when None)."""
    mutual = list(file_dialogues([MUTUAL], "en"))
    graded_held = first_dialogues(graded_held, dialogues)
    sets = [
        DevSet("DBDC3 held-out dialogues", "chit-chat", "human", "pearson", graded_held),
        DevSet(
            "DBDC3 held-out en, machine-translated",
            "chit-chat",
            "machine-translated human",
            "pearson",
            translated_examples(mt_dialogues(dbdc, dialogues or MT_DIALOGUES), targets),
        ),
        DevSet(
            "DBDC3 held-out: real vs broken reply",
            "chit-chat",
            "constructed",
            "auroc",
            _capped(broken_replies(graded_held, seed=0), cap),
        ),
    ]
    for name, dialogues in {"MuTual": mutual, **corpora_held}.items():
        for what, kinds in (("random next turn", ("random",)), ("on-topic negative", HARD)):
            sets.append(
                DevSet(
                    f"{name}: real vs {what}",
                    "chit-chat",
                    "constructed",
                    "auroc",
                    _capped(nsp_examples(dialogues, seed=0, kinds=kinds), cap),
                )
            )
    return sets


def figures(dev: DevSet, scores: np.ndarray) -> list[CardFigure]:
    by_language: dict[str, list[int]] = defaultdict(list)
    for i, example in enumerate(dev.examples):
        by_language[base_language(example.language)].append(i)
    out = []
    for language, rows in by_language.items():
        truth = np.array([dev.examples[i].target for i in rows])
        predicted = scores[rows]
        value: float | None = None
        if len(set(truth)) > 1 and np.ptp(predicted) > 0:
            if dev.measure == "pearson":
                value = float(pearsonr(predicted, truth)[0])
            else:
                value = float(roc_auc_score(truth, predicted))
        out.append(
            CardFigure(
                evaluation=dev.name,
                domain=dev.domain,
                labels=dev.labels,
                language=language,
                measure=dev.measure,
                value=value,
                n_items=len(rows),
                n_dialogues=len({dev.examples[i].dialogue_id for i in rows}),
            )
        )
    return out


def evaluate(sets: Sequence[DevSet], scores: Mapping[str, np.ndarray]) -> list[CardFigure]:
    """Every set's figures from its examples' scores (by the set's name)."""
    return [f for dev in sets for f in figures(dev, scores[dev.name])]


def normalised(figure: CardFigure) -> float | None:
    if figure.value is None:
        return None
    return figure.value if figure.measure == "pearson" else 2 * figure.value - 1


def set_means(found: Sequence[CardFigure]) -> dict[str, float]:
    """Each set's mean over its languages, on the suite's common scale."""
    values: dict[str, list[float]] = defaultdict(list)
    for f in found:
        value = normalised(f)
        if value is not None:
            values[f.evaluation].append(value)
    return {name: float(np.mean(v)) for name, v in values.items()}


def suite_score(found: Sequence[CardFigure]) -> float:
    means = set_means(found)
    return float(np.mean(list(means.values()))) if means else float("nan")
