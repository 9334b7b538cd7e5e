"""Judging the dialogues of a run store: ask every judge, store every judgment, resume safely.

Judgment ids come from (protocol, judge, target, sample), so a re-run knows what is done: `ok`
judgments are skipped, and unscored ones are asked again (a parse failure comes back from the
call cache unchanged, at no cost; a failed call gets another chance). Each batch is stored in
one transaction, and every call is cached as it completes, so a killed run loses nothing.
A model failure becomes an unscored judgment with the error, never a crash or a default label.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import Field, JsonValue, ValidationError

from dialbench.errors import DialbenchError
from dialbench.judge.protocol import JudgeProtocol, Question, Task
from dialbench.llm.model import Model
from dialbench.llm.runner import CallFailed, Runner
from dialbench.llm.structured import StructuredResult
from dialbench.schema import (
    Dialogue,
    Judgment,
    Provenance,
    Record,
    Run,
    Usage,
    standard_language_tag,
    utc_now,
)
from dialbench.store import RunStore

DEFAULT_BATCH_SIZE = 16


class JudgeTally(Record):
    """What one judge did in one `judge` command."""

    judge_model: str
    judgments: int = Field(default=0, description="items x samples")
    already_ok: int = Field(default=0, description="stored ok before this command: skipped")
    ok: int = 0
    unscored: int = 0
    usage: Usage = Field(default_factory=Usage)


class JudgeRunSummary(Record):
    protocol: str
    dialogues: int
    seconds: float
    judges: list[JudgeTally]


@dataclass(frozen=True)
class _Job:
    model: Model
    task: Task
    sample: int


def select_dialogues(
    store: RunStore, *, languages: Sequence[str] = (), limit: int | None = None
) -> list[Dialogue]:
    """The dialogues to judge in storage order: of the given languages (default all), at most
    `limit` per language so a small budget still covers every language. None is an error."""
    try:
        wanted = {standard_language_tag(tag) for tag in languages}
    except ValueError as invalid:
        raise DialbenchError(str(invalid)) from invalid
    taken: Counter[str] = Counter()
    dialogues = []
    for dialogue in store.records(Dialogue):
        if wanted and dialogue.language not in wanted:
            continue
        if limit is None or taken[dialogue.language] < limit:
            taken[dialogue.language] += 1
            dialogues.append(dialogue)
    if not dialogues:
        which = f"no dialogues in {', '.join(sorted(wanted))}" if wanted else "no dialogues"
        raise DialbenchError(
            f"{store.path.parent} holds {which} to judge; import some first "
            f"(dialbench import FILE --run {store.path.parent})"
        )
    return dialogues


async def _ask(model: Model, question: Question, sample: int, max_reasks: int) -> StructuredResult:
    """A structured answer for one sample: the sample number is part of the call's cache key."""
    return await model.structured(
        question.messages,
        question.json_schema,
        question.params,
        sample=sample,
        max_reasks=max_reasks,
    )


def _raw_output(named: list[tuple[str, list[str]]]) -> str:
    """Every answer the judge gave, labelled when there were several (re-asks, questions)."""
    flat = [(name, i, text) for name, texts in named for i, text in enumerate(texts, 1)]
    if len(flat) == 1:
        return flat[0][2]
    return "\n\n".join(f"--- {name}, answer {i} ---\n{text}" for name, i, text in flat)


async def _judge(protocol: JudgeProtocol, job: _Job, run: Run) -> Judgment:
    answers: dict[str, JsonValue] = {}
    outputs: list[tuple[str, list[str]]] = []
    errors: list[str] = []
    usage = Usage()
    hashes = dict(job.task.prompt_hashes)
    for question in job.task.questions:
        try:
            answer = await _ask(job.model, question, job.sample, protocol.settings.max_reasks)
        except CallFailed as failure:
            errors.append(f"{question.name}: model call failed: {failure}")
            continue
        outputs.append((question.name, answer.raw_outputs))
        usage = usage + answer.usage
        hashes |= answer.prompt_hashes
        if answer.status == "ok":
            answers[question.name] = answer.value
        else:
            tries = len(answer.raw_outputs)
            errors.append(f"{question.name}: unparseable after {tries} answer(s): {answer.error}")
    result = None
    if not errors:
        try:
            result = protocol.result(answers)
        except ValidationError as invalid:
            errors.append(f"answer does not fit the protocol: {invalid.errors()[0]['msg']}")
    return Judgment(
        protocol=protocol.name,
        judge_model=job.model.spec,
        target=job.task.target,
        sample_index=job.sample,
        result=result if not errors else None,
        raw_output=_raw_output(outputs),
        parse_status="unscored" if errors else "ok",
        error="; ".join(errors) or None,
        usage=usage,
        provenance=Provenance(
            run_id=run.id,
            config_hash=run.config_hash,
            prompt_hashes=hashes,
            models={"judge": job.model.spec},
        ),
        created_at=utc_now(),
    )


def _judgment_id(protocol: str, model: Model, task: Task, sample: int) -> str:
    """The id the judgment will have, by the same content rule the record applies."""
    placeholder = Judgment(
        protocol=protocol,
        judge_model=model.spec,
        target=task.target,
        sample_index=sample,
        parse_status="unscored",
    )
    return placeholder.id


async def judge_dialogues(
    store: RunStore,
    runner: Runner,
    protocol: JudgeProtocol,
    judges: Sequence[Model],
    dialogues: Sequence[Dialogue],
    run: Run,
    *,
    batch_size: int = DEFAULT_BATCH_SIZE,
) -> JudgeRunSummary:
    """Judge every dialogue with every judge (side by side in one run) under one protocol.

    The judges are models of `runner` (`runner.model(spec, role="judge")`)."""
    started = time.perf_counter()
    tasks = [task for dialogue in dialogues for task in protocol.tasks(dialogue)]
    if not tasks:
        raise DialbenchError(
            f"protocol {protocol.name!r} finds nothing to judge in the {len(dialogues)} "
            "selected dialogue(s) (it judges chatbot turns: are there any?)"
        )
    stored_ok = {
        j.id for j in store.records(Judgment, protocol=protocol.name) if j.parse_status == "ok"
    }
    tallies = {model.spec: JudgeTally(judge_model=model.spec) for model in judges}
    jobs: list[_Job] = []
    for model in judges:
        for task in tasks:
            for sample in range(protocol.settings.samples):
                tallies[model.spec].judgments += 1
                if _judgment_id(protocol.name, model, task, sample) in stored_ok:
                    tallies[model.spec].already_ok += 1
                else:
                    jobs.append(_Job(model, task, sample))
    for start in range(0, len(jobs), batch_size):
        batch = jobs[start : start + batch_size]
        judged = await runner.gather(
            [_judge(protocol, job, run) for job in batch], f"{protocol.name} judgments"
        )
        stored = [j for j in judged if isinstance(j, Judgment)]
        store.add(stored, run, on_conflict="replace")
        for judgment in stored:
            tally = tallies[judgment.judge_model]
            tally.usage = tally.usage + judgment.usage
            if judgment.parse_status == "ok":
                tally.ok += 1
            else:
                tally.unscored += 1
    return JudgeRunSummary(
        protocol=protocol.name,
        dialogues=len(dialogues),
        seconds=time.perf_counter() - started,
        judges=list(tallies.values()),
    )
