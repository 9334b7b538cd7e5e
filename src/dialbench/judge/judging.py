"""Judging: ask every judge about the selected dialogues, store every judgment, resume.

A judgment's id comes from (protocol, judge, target, sample, configuration), where the
configuration holds everything else that shapes the answer: protocol options, generation
parameters, how JSON is asked for, re-asks, and the hashes of the prompt and data files. So a
re-run under the same configuration knows what is done (`ok` judgments are skipped; unscored
ones are asked again: a parse failure comes back from the call cache unchanged, at no cost, a
failed call gets another chance), and a changed setting or edited prompt makes new judgments
beside the old ones.

Judgments stream: each starts as soon as its judge has a free slot (the model's concurrency
limit), with no barrier between them, and finished ones are stored `store_every` at a time in
one transaction as they complete. Every call is cached as it completes, so a killed run loses
nothing: what was not stored yet is rebuilt from the cache. A model failure becomes an unscored
judgment with the error, never a crash or a default label.

With a runner that batches (`judge.api.judge(batch=True)`), the calls the cache cannot answer
go to a provider batch (`llm/batch.py`) instead; their judgments are deferred, not stored at
all, until the batch is merged into the cache and judging re-run.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import Field, JsonValue, ValidationError

from dialbench.errors import DialbenchError
from dialbench.failures import Failures
from dialbench.hashing import canonical_json
from dialbench.injection.detector import injection_flags
from dialbench.judge.config import DEFAULT_STORE_EVERY
from dialbench.judge.fencing import DEFENCE, fence_hashes, fenced_tasks, shown_to_judge
from dialbench.judge.few_shot import FewShotResult
from dialbench.judge.protocol import JudgeProtocol, PairProtocol, Question, Task
from dialbench.llm.base import CallDeferred
from dialbench.llm.expected import TOP_LOGPROBS, expectation
from dialbench.llm.role_model import Model
from dialbench.llm.runner import CallFailed, Runner
from dialbench.llm.structured import StructuredResult, file_hashes
from dialbench.schema import (
    Dialogue,
    InjectionFlag,
    Invocation,
    JudgeConfiguration,
    Judgment,
    Provenance,
    Record,
    Target,
    Usage,
    standard_language_tag,
    utc_now,
)
from dialbench.sharding import Shard, owned
from dialbench.store import RunStore


class JudgeTally(Record):
    """What one judge did in one `judge` command."""

    judge_model: str
    configuration: str = Field(description="fingerprint of the judge configuration")
    judgments: int = Field(default=0, description="items x samples")
    already_ok: int = Field(default=0, description="stored ok before this command: skipped")
    ok: int = 0
    deferred: int = Field(default=0, description="waiting for a batch: judged on a re-run")
    failures: Failures = Field(
        default_factory=lambda: Failures(what="judgments"), description="unscored, by reason"
    )
    failed_calls: Failures = Field(
        default_factory=lambda: Failures(what="judgments"),
        description="of those, unscored because a model call failed for good: a run again "
        "asks again (an unparseable answer comes back from the cache unchanged)",
    )
    usage: Usage = Field(default_factory=Usage)

    @property
    def unscored(self) -> int:
        return self.failures.count


class JudgeResult(Record):
    protocol: str
    dialogues: int
    seconds: float
    judges: list[JudgeTally]
    batches: list[str] = Field(default_factory=list, description="ids of batches to wait for")
    few_shot: FewShotResult | None = Field(
        default=None, description="the examples shown and the dialogues held out (few_shot=N)"
    )
    notes: list[str] = Field(default_factory=list, description="what the run did not do as asked")


@dataclass(frozen=True)
class _Job:
    """One judgment to make: `unjudged` is it without its answer, and already has its id."""

    model: Model
    task: Task
    unjudged: Judgment


def select_dialogues(
    store: RunStore,
    *,
    languages: Sequence[str] = (),
    sources: Sequence[str] = (),
    limit: int | None = None,
    protocol: JudgeProtocol | None = None,
) -> list[Dialogue]:
    """The dialogues to judge in storage order: of the given languages and sources (default
    all), those the protocol judges anything in and does not hold out (a few-shot example's),
    at most `limit` per language so a small budget still covers every language. None is an
    error. A pair protocol's limit counts the judged dialogues among its pairs (`first_judged`),
    so every dialogue is selected for it."""
    if isinstance(protocol, PairProtocol):
        limit = None
    try:
        wanted = {standard_language_tag(tag) for tag in languages}
    except ValueError as invalid:
        raise DialbenchError(str(invalid)) from invalid
    taken: Counter[str] = Counter()
    dialogues, passed_over = [], 0
    for dialogue in store.records(Dialogue):
        if (wanted and dialogue.language not in wanted) or (
            sources and dialogue.source not in sources
        ):
            continue
        if protocol is not None and (not protocol.judges(dialogue) or protocol.held_out(dialogue)):
            passed_over += 1
        elif limit is None or taken[dialogue.language] < limit:
            taken[dialogue.language] += 1
            dialogues.append(dialogue)
    if not dialogues and protocol is not None and passed_over:
        raise _nothing_to_judge(protocol, passed_over)
    if not dialogues:
        where = [*sorted(wanted), *(f"source {s}" for s in sources)]
        which = f"no dialogues in {', '.join(where)}" if where else "no dialogues"
        raise DialbenchError(
            f"{store.path.parent} holds {which} to judge; import some first "
            f"(dialbench import FILE --run {store.path.parent})"
        )
    return dialogues


def first_judged(tasks: list[Task], dialogues: Sequence[Dialogue], limit: int | None) -> list[Task]:
    """The tasks of the first `limit` judged dialogues of each language, in storage order: a
    task belongs to the first stored of the dialogues it shows, so the two orders of a pair, and
    every self-chat set against one human dialogue, count once."""
    if limit is None:
        return tasks
    position = {dialogue.id: i for i, dialogue in enumerate(dialogues)}

    def owner(task: Task) -> int:
        shown = (task.target.dialogue_id, task.target.other_dialogue_id)
        return min(position[i] for i in shown if i in position)

    taken: Counter[str] = Counter()
    kept = set()
    for index in sorted({owner(task) for task in tasks}):
        language = dialogues[index].language
        if taken[language] < limit:
            taken[language] += 1
            kept.add(index)
    return [task for task in tasks if owner(task) in kept]


def _english_instead(protocol: JudgeProtocol, dialogues: Sequence[Dialogue]) -> list[str]:
    """Once per run: the dialogues' languages asked in English for want of a translation."""
    untranslated = protocol.prompt_files.untranslated(d.language for d in dialogues)
    if not untranslated:
        return []
    return [
        f"{protocol.name} has no prompts in {', '.join(untranslated)}: dialogues in "
        f"{'it' if len(untranslated) == 1 else 'them'} are asked in English"
    ]


def _nothing_to_judge(protocol: JudgeProtocol, dialogues: int) -> DialbenchError:
    return DialbenchError(
        f"protocol {protocol.name!r} finds nothing to judge in the {dialogues} selected "
        f"dialogue(s): it judges {protocol.judged_items}"
    )


def judge_configuration(protocol: JudgeProtocol, model: Model) -> JudgeConfiguration:
    """Everything besides the item that shapes this judge's answers under this protocol."""
    schema_in_prompt = model.api.structured_mode == "prompt"
    language = protocol.settings.prompt_language
    return JudgeConfiguration(
        options=protocol.configured_options(),
        params=protocol.params.model_dump(mode="json"),
        structured_mode=model.api.structured_mode,
        max_reasks=protocol.settings.max_reasks,
        file_hashes=protocol.file_hashes()
        | protocol.examples_hashes()
        | file_hashes(schema_in_prompt=schema_in_prompt)
        | (fence_hashes(protocol.prompt_files) if protocol.settings.fence else {}),
        prompt_language=None if language == "en" else language,
        defence=DEFENCE if protocol.settings.fence else None,
    )


async def _ask(model: Model, question: Question, sample: int, max_reasks: int) -> StructuredResult:
    """A structured answer for one sample: the sample number is part of the call's cache key.
    A question with scored fields asks for every token's alternatives."""
    return await model.structured(
        question.messages,
        question.json_schema,
        question.params,
        sample=sample,
        max_reasks=max_reasks,
        top_logprobs=TOP_LOGPROBS if question.scored else None,
    )


def _weighed(
    question: Question, answer: StructuredResult
) -> tuple[JsonValue, list[str], list[tuple[str, str]]]:
    """The answer with each scored field's value replaced by its expectation, why a field could
    not be weighed, and each weighing (its probabilities and argmax) as a labelled output."""
    value = answer.value
    if not question.scored or not isinstance(value, dict):
        return value, [], []
    weighed, errors, audit = dict(value), [], []
    for scored in question.scored:
        found = expectation(answer.raw_outputs[-1], answer.tokens, scored)
        if found.expected is None:
            errors.append(f"{question.name}: scoring=expected: {found.error}")
            continue
        weighed[scored.name] = found.expected
        shown = found.model_dump(mode="json", exclude={"field", "status", "error"})
        audit.append((f"{question.name}, {scored.name} weighed", canonical_json(shown)))
    return weighed, errors, audit


def _raw_output(outputs: list[tuple[str, str]]) -> str:
    """Every answer the judge gave (and each weighing), labelled when there are several
    (re-asks, questions, scored fields)."""
    if len(outputs) == 1:
        return outputs[0][1]
    return "\n\n".join(f"--- {label} ---\n{text}" for label, text in outputs)


class _FlagsOf:
    """The judge-directed text (`dialbench.injection`) in what a judge reads of a target: its
    dialogue, up to the turn a turn's judge is shown, or both dialogues of a pair; each
    dialogue read once."""

    def __init__(self, dialogues: Sequence[Dialogue]) -> None:
        self._dialogues = {dialogue.id: dialogue for dialogue in dialogues}
        self._found: dict[tuple[str, bool], list[InjectionFlag]] = {}

    def _of(self, dialogue_id: str, with_id: bool) -> list[InjectionFlag]:
        key = (dialogue_id, with_id)
        if key not in self._found:
            dialogue = self._dialogues.get(dialogue_id)
            found = [] if dialogue is None else injection_flags(dialogue, with_id=with_id)
            self._found[key] = found
        return self._found[key]

    def __call__(self, target: Target) -> list[InjectionFlag]:
        if target.other_dialogue_id is not None:
            return [
                *self._of(target.dialogue_id, with_id=True),
                *self._of(target.other_dialogue_id, with_id=True),
            ]
        flags = self._of(target.dialogue_id, with_id=False)
        if target.turn_index is None:
            return flags
        return [flag for flag in flags if flag.turn_index <= target.turn_index]


def _job(
    protocol: JudgeProtocol,
    model: Model,
    configuration: JudgeConfiguration,
    task: Task,
    sample: int,
    flags: list[InjectionFlag],
) -> _Job:
    unjudged = Judgment(
        protocol=protocol.name,
        judge_model=model.spec,
        target=task.target,
        sample_index=sample,
        configuration=configuration,
        parse_status="unscored",
        injection_flags=flags,
    )
    return _Job(model, task, unjudged)


def _fallen_back(job: _Job) -> str | None:
    """The JSON mode the judge's server took, where it refused the configured one."""
    configured = job.unjudged.configuration
    used = job.model.api.structured_mode
    return used if configured is not None and used != configured.structured_mode else None


async def _judge(
    protocol: JudgeProtocol, job: _Job, run: Invocation
) -> tuple[Judgment, bool] | None:
    """The judgment and whether a model call of it failed for good, or None when a call went
    to a batch (every question is still asked, so the batch holds all of them)."""
    answers: dict[str, JsonValue] = {}
    outputs: list[tuple[str, str]] = []
    errors: list[str] = []
    deferred = False
    call_failed = False
    usage = Usage()
    for question in job.task.questions:
        try:
            answer = await _ask(
                job.model, question, job.unjudged.sample_index, protocol.settings.max_reasks
            )
        except CallFailed as failure:
            errors.append(f"{question.name}: model call failed: {failure}")
            call_failed = True
            continue
        except CallDeferred:
            deferred = True
            continue
        outputs += [
            (f"{question.name}, answer {i}", t) for i, t in enumerate(answer.raw_outputs, 1)
        ]
        usage = usage + answer.usage
        if answer.status == "ok":
            answers[question.name], problems, weighings = _weighed(question, answer)
            errors += problems
            outputs += weighings
        else:
            tries = len(answer.raw_outputs)
            errors.append(f"{question.name}: unparseable after {tries} answer(s): {answer.error}")
    if deferred:
        return None
    result = None
    if not errors:
        try:
            result = protocol.result(answers)
        except ValidationError as invalid:
            errors.append(f"answer does not fit the protocol: {invalid.errors()[0]['msg']}")
    judgment = job.unjudged.model_copy(
        update={
            "result": result if not errors else None,
            "raw_output": _raw_output(outputs),
            "parse_status": "unscored" if errors else "ok",
            "error": "; ".join(errors) or None,
            "usage": usage,
            "provenance": Provenance(
                run_id=run.id,
                config_hash=run.config_hash,
                models={"judge": job.model.spec},
                structured_mode=_fallen_back(job),
            ),
            "created_at": utc_now(),
        }
    )
    return judgment, call_failed


def _asked(protocol: JudgeProtocol, dialogues: Sequence[Dialogue]) -> list[Task]:
    """The protocol's tasks, asked about the dialogues fenced where its settings say so."""
    if not protocol.settings.fence:
        return protocol.tasks(dialogues)
    shown = [shown_to_judge(dialogue) for dialogue in dialogues]
    return fenced_tasks(protocol.tasks(shown), shown, protocol.prompt_files)


async def judge_dialogues(
    store: RunStore,
    runner: Runner,
    protocol: JudgeProtocol,
    judges: Sequence[Model],
    dialogues: Sequence[Dialogue],
    run: Invocation,
    *,
    store_every: int = DEFAULT_STORE_EVERY,
    shard: Shard | None = None,
    limit: int | None = None,
) -> JudgeResult:
    """Judge the dialogues with every judge (side by side in one run) under one protocol.

    The judges are models of `runner` (`runner.model(spec, role="judge")`). `shard`: only the
    tasks it owns, by the (first) dialogue judged, so a pair is judged in one shard. `limit`:
    the tasks of the first judged dialogues of each language (`first_judged`). A dialogue a
    few-shot example comes from is never judged under it (`JudgeProtocol.held_out`)."""
    started = time.perf_counter()
    judgeable = [dialogue for dialogue in dialogues if not protocol.held_out(dialogue)]
    tasks = first_judged(_asked(protocol, judgeable), dialogues, limit)
    if not tasks:
        raise _nothing_to_judge(protocol, len(dialogues))
    tasks = [task for task in tasks if owned(shard, task.target.dialogue_id)]
    stored_ok = {
        j.id for j in store.records(Judgment, protocol=protocol.name) if j.parse_status == "ok"
    }
    tallies: dict[str, JudgeTally] = {}
    jobs: list[_Job] = []
    flags_of = _FlagsOf(dialogues)
    for model in judges:
        configuration = judge_configuration(protocol, model)
        tally = tallies[model.spec] = JudgeTally(
            judge_model=model.spec, configuration=configuration.fingerprint
        )
        for task in tasks:
            for sample in range(protocol.settings.samples):
                job = _job(protocol, model, configuration, task, sample, flags_of(task.target))
                tally.judgments += 1
                if job.unjudged.id in stored_ok:
                    tally.already_ok += 1
                else:
                    jobs.append(job)
    finished: list[Judgment] = []

    failed_calls: set[str] = set()

    def store_finished() -> None:
        runner.store(finished, run)
        for judgment in finished:
            tally = tallies[judgment.judge_model]
            tally.usage = tally.usage + judgment.usage
            if judgment.parse_status == "ok":
                tally.ok += 1
            else:
                tally.failures.add(judgment.error)
            if judgment.id in failed_calls:
                tally.failed_calls.add(judgment.error)
        finished.clear()

    async def judged(job: _Job) -> None:
        done = await _judge(protocol, job, run)
        if done is None:
            tallies[job.model.spec].deferred += 1
            return
        judgment, call_failed = done
        if call_failed:
            failed_calls.add(judgment.id)
        finished.append(judgment)
        if len(finished) >= store_every:
            store_finished()

    await runner.gather([judged(job) for job in jobs], f"{protocol.name} judgments")
    store_finished()
    await runner.stored()
    return JudgeResult(
        protocol=protocol.name,
        dialogues=len(dialogues),
        seconds=time.perf_counter() - started,
        judges=list(tallies.values()),
        notes=_english_instead(protocol, dialogues),
    )
