"""Recorded dialogues replayed with a candidate chatbot as a pipeline stage."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Literal

from pydantic import field_validator

from dialbench.failures import work_left
from dialbench.llm.specs import as_model_config
from dialbench.pipeline.stage import (
    DIALOGUES,
    TOKENS_PER_UTTERANCE,
    ModelCalls,
    PlanContext,
    ShardableStage,
    StageEstimate,
    StageResult,
    first_of,
    quiet_on_a_terminal,
)
from dialbench.replay.api import replay
from dialbench.replay.config import ReplayConfig
from dialbench.replay_records import SOURCE

# A plan cannot see the recorded dialogues' turns: mode `every` is counted at this many replies.
REPLIES_PER_DIALOGUE = {"last": 1, "every": 4}
PREFIX_UTTERANCES = 8


class ReplayStage(ShardableStage, ReplayConfig):
    stage: Literal["replay"]
    pace_fields: ClassVar[frozenset[str]] = frozenset({"concurrency"})

    _candidate = field_validator("candidate", mode="before")(as_model_config)

    def reads(self) -> frozenset[str]:
        return frozenset({DIALOGUES})

    def writes(self) -> frozenset[str]:
        return frozenset({DIALOGUES})

    def execute(self, run_dir: Path) -> StageResult:
        summary = replay(
            self.config(ReplayConfig), run_dir, quiet=quiet_on_a_terminal(), shard=self.shard
        )
        return StageResult(
            f"{summary.replayed} replay(s) of {summary.planned} recorded dialogue(s), "
            f"{summary.already_stored} already stored, {summary.failures.count} error(s), "
            f"{summary.tool_calls_not_recorded} tool call(s) not in the recording",
            summary,
            work_left([(summary.failures, summary.planned)]),
        )

    def estimate(self, context: PlanContext) -> StageEstimate:
        sources = set(self.sources) or {s for s, _ in context.dialogues if s != SOURCE}
        by_language = context.languages(sources, set(self.languages) or None)
        if self.limit is not None:
            by_language = first_of(by_language, self.limit)
        replies = sum(by_language.values()) * REPLIES_PER_DIALOGUE[self.mode]
        model = self.candidate
        calls = {
            model.spec: ModelCalls(
                calls=replies,
                prompt_tokens=replies * TOKENS_PER_UTTERANCE * PREFIX_UTTERANCES,
                completion_tokens=replies * self.params.max_tokens,
                concurrency=min(model.concurrency, self.concurrency),
            )
        }
        return StageEstimate(
            calls=calls,
            adds_dialogues={(SOURCE, language): n for language, n in by_language.items()},
            note="" if self.mode == "last" else "mode every: counted at 4 replies a dialogue",
        )
