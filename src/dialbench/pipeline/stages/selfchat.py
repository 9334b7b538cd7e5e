"""BotChat self-chat from ChatSEEDs as a pipeline stage."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, Literal

from pydantic import field_validator

from dialbench.botchat.api import selfchat
from dialbench.botchat.config import SelfChatConfig
from dialbench.botchat.selfchat import PACKAGE, SOURCE, SYSTEM_PROMPT
from dialbench.failures import work_left
from dialbench.llm.specs import as_model_configs
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
from dialbench.prompts import load_prompt

SEED_UTTERANCES = 2  # a MuTual ChatSEED's first utterances, kept as they are


class SelfChatStage(ShardableStage, SelfChatConfig):
    stage: Literal["selfchat"]
    pace_fields: ClassVar[frozenset[str]] = frozenset({"concurrency"})

    _models = field_validator("models", mode="before")(as_model_configs)

    def reads(self) -> frozenset[str]:
        return frozenset({DIALOGUES})

    def writes(self) -> frozenset[str]:
        return frozenset({DIALOGUES})

    def code_hashes(self) -> dict[str, str]:
        return {SYSTEM_PROMPT: load_prompt(SYSTEM_PROMPT, PACKAGE).sha256}

    def execute(self, run_dir: Path) -> StageResult:
        summary = selfchat(
            self.config(SelfChatConfig), run_dir, quiet=quiet_on_a_terminal(), shard=self.shard
        )
        return StageResult(
            f"{summary.generated} self-chat(s) from {summary.seeds} seed(s), "
            f"{summary.already_stored} already stored, {summary.failures.count} error(s)",
            summary,
            work_left([(summary.failures, summary.planned)]),
        )

    def estimate(self, context: PlanContext) -> StageEstimate:
        by_language = context.languages({self.seeds})
        if self.limit is not None:
            by_language = first_of(by_language, self.limit)
        seeds = sum(by_language.values())
        steps = max(self.n - SEED_UTTERANCES, 0)
        prompt = TOKENS_PER_UTTERANCE * self.n // 2 + 60
        calls = {
            model.spec: ModelCalls(
                calls=seeds * steps,
                prompt_tokens=seeds * steps * prompt,
                completion_tokens=seeds * steps * (self.params.max_tokens or 128),
                concurrency=min(model.concurrency, self.concurrency),
            )
            for model in self.models
        }
        added = {(SOURCE, language): n * len(self.models) for language, n in by_language.items()}
        return StageEstimate(calls=calls, adds_dialogues=added, seeds=dict(by_language))
