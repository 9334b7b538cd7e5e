"""An LLM-judge stage: one protocol, one or more judges, over every stored dialogue."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Literal

from pydantic import field_validator

from dialbench.failures import work_left
from dialbench.judge.api import judge
from dialbench.judge.config import JudgeConfig
from dialbench.judge.few_shot import examples_in_run
from dialbench.judge.judging import JudgeResult
from dialbench.judge.protocol import ASSISTANT_TURNS_PER_DIALOGUE, JudgeProtocol, Question
from dialbench.llm.specs import as_model_configs
from dialbench.pipeline.stage import (
    ANNOTATIONS,
    DIALOGUES,
    JUDGMENTS,
    TOKENS_PER_UTTERANCE,
    ModelCalls,
    PlanContext,
    ShardableStage,
    StageEstimate,
    StageResult,
    quiet_on_a_terminal,
    relative_to,
    text_tokens,
)
from dialbench.schema import SPEAKERS, Dialogue, Turn
from dialbench.store import STORE_FILENAME


def typical_dialogue() -> Dialogue:
    """A stand-in of a MEDAL dialogue's size, before any exists: what a dry run puts in a
    protocol's prompt templates to count their tokens."""
    utterances = round(2 * ASSISTANT_TURNS_PER_DIALOGUE)
    text = " ".join(["abc"] * TOKENS_PER_UTTERANCE)  # CHARS_PER_TOKEN characters per token
    return Dialogue(
        language="en",
        turns=[Turn(role=SPEAKERS[i % 2], text=text) for i in range(utterances)],
    )


def judged_summary(summary: JudgeResult) -> str:
    parts = [
        f"{t.judge_model}: {t.ok} ok, {t.unscored} unscored, {t.already_ok} already judged"
        for t in summary.judges
    ]
    few_shot = summary.few_shot.lines() if summary.few_shot else []
    notes = "".join(f" (note: {note})" for note in summary.notes)
    return (
        f"{summary.protocol} on {summary.dialogues} dialogue(s): "
        + "; ".join(parts + [line.strip() for line in few_shot])
        + notes
    )


class JudgeStage(ShardableStage, JudgeConfig):
    stage: Literal["judge"]
    pace_fields: ClassVar[frozenset[str]] = frozenset({"store_every"})

    # `judges: [local:qwen2.5-0.5b]` as well as `judges: [{spec: ...}]`.
    _judges = field_validator("judges", mode="before")(as_model_configs)

    def reads(self) -> frozenset[str]:
        """The run's annotations too where they are the few-shot examples."""
        own_examples = self.examples_from is None and self.build_protocol().examples_wanted()
        return frozenset({DIALOGUES, ANNOTATIONS} if own_examples else {DIALOGUES})

    def writes(self) -> frozenset[str]:
        return frozenset({JUDGMENTS})

    def resolve_paths(self, folder: Path) -> JudgeStage:
        return self.model_copy(update={"examples_from": relative_to(folder, self.examples_from)})

    def code_hashes(self) -> dict[str, str]:
        return self.build_protocol().file_hashes()

    def store_hashes(self, run_dir: Path) -> dict[str, str]:
        """Under few_shot, the hash of the examples it would show now (`examples_hashes`):
        labels reviewed in the web app change them, and so what judging makes; none else."""
        return self._with_examples(run_dir).examples_hashes()

    def _with_examples(self, run_dir: Path) -> JudgeProtocol:
        """The protocol with the examples it would choose now from the labels stored in the
        judged run or `examples_from` (none before that run has a store)."""
        protocol = self.build_protocol()
        if protocol.examples_wanted():
            source = self.examples_from or run_dir
            stored = (source / STORE_FILENAME).is_file()
            protocol.use_examples(examples_in_run(source) if stored else [])
        return protocol

    def execute(self, run_dir: Path) -> StageResult:
        summary = judge(
            self.config(JudgeConfig), run_dir, quiet=quiet_on_a_terminal(), shard=self.shard
        )
        counted = [(tally.failed_calls, tally.judgments) for tally in summary.judges]
        waiting = sum(tally.deferred for tally in summary.judges)
        # Judgments in a batch are judged when it is back: a run again collects them.
        batched = f"{waiting} judgment(s) in a batch" if waiting else None
        failed = "; ".join(left for left in (work_left(counted), batched) if left) or None
        return StageResult(judged_summary(summary), summary, failed)

    def estimate(self, context: PlanContext) -> StageEstimate:
        """Calls and prompt tokens from the protocol's own questions about a typical dialogue,
        with the few-shot examples each language would be shown (`few_shot_tokens`); answers as
        long as `max_tokens` (an upper bound). Labels a stage before it will import can change
        the examples, which the note says."""
        protocol = self._with_examples(context.run_dir)
        per_language = context.languages(set(self.sources) or None, set(self.languages) or None)
        per_dialogue = protocol.items_per_dialogue() * self.settings.samples
        items = {
            language: min(n, self.limit or n) * per_dialogue for language, n in per_language.items()
        }
        questions = protocol.typical_questions(typical_dialogue())
        prompt = sum(text_tokens(m.content) for q in questions for m in q.messages)
        shown, note = few_shot_tokens(protocol, questions, sorted(items))
        labelling = context.written_first.get(ANNOTATIONS, [])
        if (
            labelling
            and ANNOTATIONS in self.reads()
            and protocol.examples
            and protocol.examples.shots
        ):
            first = ", ".join(labelling)
            note += f" (chosen from the labels stored now; {first} will add labels first)"
        total = sum(items.values())
        prompt_tokens = sum(n * (prompt + shown.get(language, 0)) for language, n in items.items())
        return StageEstimate(
            calls={
                judge.spec: ModelCalls(
                    calls=int(total * len(questions)),
                    prompt_tokens=int(prompt_tokens),
                    completion_tokens=sum(int(total * q.params.max_tokens) for q in questions),
                    concurrency=judge.concurrency,
                )
                for judge in self.judges
            },
            note=note,
        )


def few_shot_tokens(
    protocol: JudgeProtocol, questions: list[Question], languages: list[str]
) -> tuple[dict[str, int], str]:
    """The prompt tokens the chosen examples add to one item's questions, per language, and a
    note saying what was counted. With no label stored yet (a stage before it imports them),
    each question is counted with N examples as long as its typical item."""
    if protocol.examples is None:
        return {}, ""
    wanted = protocol.examples.wanted
    if not protocol.examples.shots:
        typical = sum(
            wanted.get(q.name, 0) * text_tokens(q.messages[-1].content) for q in questions
        )
        shown = ", ".join(f"{n} of {question}" for question, n in wanted.items())
        return dict.fromkeys(languages, typical), (
            f"few-shot: no labels stored yet; {shown} counted as long as a typical item"
        )
    tokens = {
        language: sum(
            text_tokens(m.content)
            for q in questions
            for m in protocol.examples.messages(language, q.name)
        )
        for language in languages
    }
    counts = protocol.examples.ids()
    shown = "; ".join(
        f"{language} "
        + ", ".join(f"{len(ids)} of {question}" for question, ids in counts[language].items())
        if language in counts
        else f"{language} zero-shot"
        for language in languages
    )
    return tokens, f"few-shot examples counted: {shown}"
