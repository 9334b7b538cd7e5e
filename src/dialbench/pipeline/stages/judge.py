"""An LLM-judge stage: one protocol, one or more judges, over every stored dialogue."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Literal

from pydantic import field_validator

from dialbench.judge.stage import JudgeConfig, JudgeRunSummary, judge
from dialbench.llm.specs import as_model_configs
from dialbench.pipeline.stage import (
    DIALOGUES,
    JUDGMENTS,
    ModelCalls,
    PlanContext,
    ShardableStage,
    StageEstimate,
    StageOutput,
)

PROMPT_TOKENS = 900  # instructions and a whole transcript


def judged_summary(summary: JudgeRunSummary) -> str:
    parts = [
        f"{t.judge_model}: {t.ok} ok, {t.unscored} unscored, {t.already_ok} already judged"
        for t in summary.judges
    ]
    return f"{summary.protocol} on {summary.dialogues} dialogue(s): " + "; ".join(parts)


class JudgeStage(ShardableStage, JudgeConfig):
    stage: Literal["judge"]
    pace_fields: ClassVar[frozenset[str]] = frozenset({"batch_size"})

    # `judges: [local:qwen2.5-0.5b]` as well as `judges: [{spec: ...}]`.
    _judges = field_validator("judges", mode="before")(as_model_configs)

    def reads(self) -> frozenset[str]:
        return frozenset({DIALOGUES})

    def writes(self) -> frozenset[str]:
        return frozenset({JUDGMENTS})

    def code_hashes(self) -> dict[str, str]:
        return self.build_protocol().file_hashes()

    def execute(self, run_dir: Path, *, quiet: bool) -> StageOutput:
        summary = judge(self.config(JudgeConfig), run_dir, quiet=True, shard=self.shard)
        return StageOutput(judged_summary(summary), summary)

    def estimate(self, context: PlanContext) -> StageEstimate:
        protocol = self.build_protocol()
        dialogues = context.count(set(self.sources) or None)
        items = dialogues * protocol.items_per_dialogue() * self.settings.samples
        calls = int(items)
        return StageEstimate(
            calls={
                judge.spec: ModelCalls(
                    calls=calls,
                    prompt_tokens=calls * PROMPT_TOKENS,
                    completion_tokens=calls * protocol.params.max_tokens,
                    concurrency=judge.concurrency,
                )
                for judge in self.judges
            },
            note="" if self.limit is None else f"without the limit of {self.limit} per language",
        )
