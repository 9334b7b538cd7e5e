"""An LLM-judge stage: one protocol, one or more judges, over every stored dialogue."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Literal

from pydantic import field_validator

from dialbench.judge.api import judge
from dialbench.judge.config import JudgeConfig
from dialbench.judge.judging import JudgeRunSummary
from dialbench.judge.protocol import ASSISTANT_TURNS_PER_DIALOGUE
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
    StageOutput,
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


def judged_summary(summary: JudgeRunSummary) -> str:
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

    def input_files(self) -> list[Path]:
        """The store of the run the few-shot examples come from, where it is another."""
        return [] if self.examples_from is None else [self.examples_from / STORE_FILENAME]

    def resolve_paths(self, folder: Path) -> JudgeStage:
        return self.model_copy(update={"examples_from": relative_to(folder, self.examples_from)})

    def code_hashes(self) -> dict[str, str]:
        return self.build_protocol().file_hashes()

    def execute(self, run_dir: Path) -> StageOutput:
        summary = judge(
            self.config(JudgeConfig), run_dir, quiet=quiet_on_a_terminal(), shard=self.shard
        )
        return StageOutput(judged_summary(summary), summary)

    def estimate(self, context: PlanContext) -> StageEstimate:
        """Calls and prompt tokens from the protocol's own questions about a typical dialogue;
        answers as long as `max_tokens` (an upper bound)."""
        protocol = self.build_protocol()
        dialogues = context.count(
            set(self.sources) or None,
            per_language=self.limit,
            languages=set(self.languages) or None,
        )
        items = dialogues * protocol.items_per_dialogue() * self.settings.samples
        questions = protocol.typical_questions(typical_dialogue())
        prompt = sum(text_tokens(m.content) for q in questions for m in q.messages)
        calls = int(items * len(questions))
        return StageEstimate(
            calls={
                judge.spec: ModelCalls(
                    calls=calls,
                    prompt_tokens=int(items * prompt),
                    completion_tokens=sum(int(items * q.params.max_tokens) for q in questions),
                    concurrency=judge.concurrency,
                )
                for judge in self.judges
            },
        )
