"""Score the turns of a run with a trained metric: ordinary Judgments, as an LLM judge writes
them (protocol `metric:NAME`, judge model `metric:NAME@VERSION`), so meta-evaluation and the
report treat both alike. Also: the human labels a graded metric learned from, mapped to the
metric's dimension, so `dialbench metaeval RUN --protocol metric:NAME` can compare the two."""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from dialbench.errors import DialbenchError
from dialbench.metrics.encoders import ENCODERS, Encoder, load_encoder
from dialbench.metrics.examples import Example, turn_example
from dialbench.metrics.features import featurize
from dialbench.metrics.finetune import FOLDER, FineTunedMetric
from dialbench.metrics.saved_metric import EncoderInfo, MetricInfo, MetricModel
from dialbench.schema import (
    Annotation,
    Dialogue,
    Invocation,
    JudgeConfiguration,
    Judgment,
    Provenance,
    Speaker,
    Target,
    base_language,
)
from dialbench.store import RunStore

BATCH_DIALOGUES = 2000
"""Dialogues encoded together: a text shared by several of them is encoded once."""
MANY_TURNS = 10_000
"""From this many turns, one encoder process per core by default: each takes a second or two to
start, which a run this size repays (24,222 turns on two idle cores: 1,163 turns/s with two
processes, 633 with one). Below it, or with other jobs on the cores, one process is as fast."""


def encoder_processes(turns: int) -> int:
    return len(os.sched_getaffinity(0)) if turns >= MANY_TURNS else 1


@dataclass
class ScoreCounts:
    judgments: int = 0
    dialogues: int = 0
    seconds: float = 0.0
    no_head: Counter[str] = field(default_factory=Counter)

    @property
    def turns_per_second(self) -> float:
        return self.judgments / self.seconds if self.seconds else 0.0


def turn_indices(
    dialogue: Dialogue, roles: Iterable[Speaker], *, last_only: bool = False
) -> list[int]:
    """The turns of the given sides, or only the last of them (a judge's turns=last); never a
    tool turn (`examples`)."""
    wanted = set(roles)
    indices = [i for i, turn in enumerate(dialogue.turns) if turn.role in wanted]
    return indices[-1:] if last_only else indices


def turns_to_score(
    dialogue: Dialogue, roles: Iterable[Speaker], *, last_only: bool = False
) -> list[Example]:
    return [turn_example(dialogue, i) for i in turn_indices(dialogue, roles, last_only=last_only)]


def score_examples(
    model: MetricModel, examples: list[Example], encoder: Encoder | FineTunedMetric
) -> list[float | None]:
    """One score per example (None where no head serves its language)."""
    if isinstance(encoder, FineTunedMetric):
        low, high = model.info.clip
        return [float(v) for v in np.clip(encoder.predict(examples, model.info.history), low, high)]
    features = featurize(examples, encoder, model.info.history)
    scores: list[float | None] = [None] * len(examples)
    by_language: dict[str, list[int]] = {}
    for i, example in enumerate(examples):
        by_language.setdefault(base_language(example.language), []).append(i)
    for language, rows in by_language.items():
        predicted = model.predict(features[rows], language)
        if predicted is not None:
            for row, value in zip(rows, predicted.tolist(), strict=True):
                scores[row] = value
    return scores


def _judgment(
    info: MetricInfo,
    configuration: JudgeConfiguration,
    provenance: Provenance,
    example: Example,
    value: float,
) -> Judgment:
    return Judgment(
        protocol=info.protocol,
        judge_model=info.judge_model,
        target=Target(dialogue_id=example.dialogue_id, turn_index=example.turn_index),
        configuration=configuration,
        result={info.dimension: round(value, 6)},
        parse_status="ok",
        provenance=provenance,
    )


def _tuning(model: MetricModel) -> tuple[int, int]:
    """The fine-tuned head's hidden size and the maximum input length it was trained with."""
    tuning = model.info.config.get("finetune")
    assert isinstance(tuning, dict)
    return int(str(tuning["hidden"])), int(str(tuning["max_length"]))


def _install(expected: EncoderInfo) -> str:
    """How to get the release a metric was trained on, where its encoder is a known one."""
    if expected.name not in ENCODERS:
        return ""
    return f" (pip install {ENCODERS.load(expected.name).package}=={expected.version})"


def check_encoder(model: MetricModel, encoder: Encoder) -> None:
    expected = model.info.encoder
    if (encoder.name, encoder.version, encoder.dim) != (
        expected.name,
        expected.version,
        expected.dim,
    ):
        raise DialbenchError(
            f"the metric was trained on encoder {expected.name} {expected.version}; "
            f"this environment has {encoder.name} {encoder.version}{_install(expected)}"
        )


def score_run(
    model: MetricModel,
    store: RunStore,
    run: Invocation,
    *,
    roles: Iterable[Speaker] = ("assistant",),
    last_only: bool = False,
    heldout_only: bool = False,
    languages: Iterable[str] = (),
    encoder: Encoder | None = None,
    workers: int | None = None,
) -> ScoreCounts:
    """Judge every turn of the given roles (only each dialogue's last with `last_only`);
    re-scoring replaces the same judgments. `workers`
    processes encode when no `encoder` is given (default: `encoder_processes`). The seconds
    counted are the whole call's: reading the dialogues, loading the encoder, scoring and
    storing the judgments."""
    began = time.perf_counter()
    roles = tuple(roles)
    wanted = {base_language(lang) for lang in languages}
    heldout = set(model.info.heldout_dialogues)
    dialogues = [
        d
        for d in store.records(Dialogue)
        if (not heldout_only or d.id in heldout)
        and (not wanted or base_language(d.language) in wanted)
    ]
    scorer: Encoder | FineTunedMetric
    if model.fine_tuned:
        assert model.folder is not None
        hidden, max_length = _tuning(model)
        scorer = FineTunedMetric(model.folder / FOLDER, hidden, max_length)
    else:
        turns = sum(len(turn_indices(d, roles, last_only=last_only)) for d in dialogues)
        processes = workers or encoder_processes(turns)
        scorer = encoder or load_encoder(model.info.encoder.name, workers=processes)
        check_encoder(model, scorer)
    summary = ScoreCounts(dialogues=len(dialogues))
    configuration = model.info.configuration()
    provenance = Provenance(
        run_id=run.id, config_hash=run.config_hash, models={"metric": model.info.judge_model}
    )
    for start in range(0, len(dialogues), BATCH_DIALOGUES):
        examples = [
            e
            for d in dialogues[start : start + BATCH_DIALOGUES]
            for e in turns_to_score(d, roles, last_only=last_only)
        ]
        scores = score_examples(model, examples, scorer)
        judgments = []
        for example, value in zip(examples, scores, strict=True):
            if value is None:
                summary.no_head[base_language(example.language)] += 1
            else:
                judgments.append(_judgment(model.info, configuration, provenance, example, value))
        store.add(judgments, run, on_conflict="replace")
        summary.judgments += len(judgments)
    summary.seconds = time.perf_counter() - began
    return summary


def human_scores(model: MetricModel, annotations: Iterable[Annotation]) -> list[Annotation]:
    """Each annotator's label of the metric's training target as a number on the metric's
    dimension (annotator `ID/DIMENSION`, a record of its own beside the original label)."""
    target = model.info.config.get("target")
    if not isinstance(target, dict):
        raise DialbenchError(
            f"metric {model.info.name} was not trained on human labels ({model.info.objective})"
        )
    source, values = str(target["dimension"]), target["values"]
    assert isinstance(values, dict)
    dimension = model.info.dimension
    derived = []
    for annotation in annotations:
        label = annotation.labels.get(source)
        value = values.get(str(label)) if label is not None else None
        if isinstance(value, int | float) and annotation.target.turn_index is not None:
            derived.append(
                Annotation(
                    annotator_id=f"{annotation.annotator_id}/{dimension}",
                    target=annotation.target,
                    labels={dimension: float(value)},
                )
            )
    return derived
