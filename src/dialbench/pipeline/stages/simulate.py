"""MEDAL simulation as a pipeline stage."""

from __future__ import annotations

from math import ceil
from pathlib import Path
from typing import ClassVar, Literal

from dialbench.failures import work_left
from dialbench.pipeline.stage import (
    DIALOGUES,
    TOKENS_PER_UTTERANCE,
    ModelCalls,
    PlanContext,
    ShardableStage,
    StageEstimate,
    StageResult,
    quiet_on_a_terminal,
    relative_to,
)
from dialbench.simulate.api import simulate
from dialbench.simulate.config import SimulationConfig
from dialbench.simulate.simulation import SOURCE, prompt_hashes

PROMPT_TOKENS = 300  # a simulation prompt's instructions and context, before the transcript


class SimulateStage(ShardableStage, SimulationConfig):
    stage: Literal["simulate"]
    pace_fields: ClassVar[frozenset[str]] = frozenset({"concurrency"})

    def reads(self) -> frozenset[str]:
        return frozenset()

    def writes(self) -> frozenset[str]:
        return frozenset({DIALOGUES})

    def input_files(self) -> list[Path]:
        return [path for path in (self.seeds.scenes, self.seeds.personas) if path is not None]

    def code_hashes(self) -> dict[str, str]:
        return prompt_hashes()

    def resolve_paths(self, folder: Path) -> SimulateStage:
        seeds = self.seeds.model_copy(
            update={
                "scenes": relative_to(folder, self.seeds.scenes),
                "personas": relative_to(folder, self.seeds.personas),
            }
        )
        return self.model_copy(update={"seeds": seeds})

    def execute(self, run_dir: Path) -> StageResult:
        summary = simulate(
            self.config(SimulationConfig), run_dir, quiet=quiet_on_a_terminal(), shard=self.shard
        )
        rate = summary.acceptance_rate
        ends = ", ".join(f"{reason} {n}" for reason, n in sorted(summary.end_reasons.items()))
        return StageResult(
            f"{summary.generated} dialogue(s) generated, {summary.already_stored} already stored"
            f" ({ends or 'none new'}); validator accepted "
            + ("-" if rate is None else f"{rate:.0%} of {summary.user_attempts} user attempts"),
            summary,
            work_left([(summary.failures, summary.planned)]),
        )

    def estimate(self, context: PlanContext) -> StageEstimate:
        """Every dialogue runs to the turn cap, each user turn accepted at its first attempt:
        the lower bound when the validator rejects, the upper bound when dialogues end early."""
        contexts = self.seeds.contexts * len(self.languages)
        dialogues = contexts * len(self.user.models) * len(self.chatbots.models)
        user_turns = ceil(self.max_utterances / 2)
        bot_turns = self.max_utterances // 2
        prompt = PROMPT_TOKENS + TOKENS_PER_UTTERANCE * self.max_utterances // 2
        calls: dict[str, ModelCalls] = {}

        def add(spec: str, n: int, completion_tokens: int | None, concurrency: int) -> None:
            more = ModelCalls(
                calls=n,
                prompt_tokens=n * prompt,
                completion_tokens=n * (completion_tokens or TOKENS_PER_UTTERANCE),
                concurrency=min(concurrency, self.concurrency),
            )
            calls[spec] = calls[spec] + more if spec in calls else more

        per_user_model = dialogues // len(self.user.models)
        for model in self.user.models:
            add(
                model.spec,
                per_user_model * user_turns,
                self.user.turns.max_tokens,
                model.concurrency,
            )
        if self.validator.model is not None:
            validator = self.validator.model
            add(validator.spec, dialogues * user_turns, self.validator.params.max_tokens, 1)
        per_bot = dialogues // len(self.chatbots.models)
        for model in self.chatbots.models:
            add(model.spec, per_bot * bot_turns, self.chatbots.params.max_tokens, model.concurrency)
        per_language = dialogues // len(self.languages)
        added = {(SOURCE, target.language): per_language for target in self.languages}
        return StageEstimate(
            calls=calls,
            adds_dialogues=added,
            seeds={target.language: self.seeds.contexts for target in self.languages},
            dialogues_per_seed=len(self.user.models),
        )
