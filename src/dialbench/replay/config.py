"""What a replay is asked for, as `dialbench replay` and the pipeline's `replay` stage give it
to `replay.api.replay`."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from dialbench.llm.base import GenerationParams
from dialbench.llm.specs import ModelConfig
from dialbench.schema import Record

# last: the reply that ends each recorded dialogue; every: each reply, on its own recorded prefix.
ReplayMode = Literal["last", "every"]
# recorded: the log's system prompt where it kept one (else none); given: `given_system_prompt`,
# the prompt a team wants to try; none. A chatbot of the user's own never gets one (it has its own).
SystemPrompt = Literal["recorded", "given", "none"]


class ReplayConfig(Record):
    """Which recorded dialogues, which candidate, which replies."""

    candidate: ModelConfig
    mode: ReplayMode = "last"
    sources: list[str] = Field(
        default_factory=list,
        description="only dialogues from these sources; none: every source but replays",
    )
    languages: list[str] = Field(default_factory=list, description="only these; none: all")
    limit: int | None = Field(default=None, ge=1, description="only the first K dialogues")
    system_prompt: SystemPrompt = "recorded"
    given_system_prompt: str | None = Field(default=None, min_length=1)
    params: GenerationParams = Field(
        default_factory=lambda: GenerationParams(max_tokens=256, temperature=0.0)
    )
    max_tool_rounds: int = Field(
        default=4, ge=0, description="rounds of tool calls a reply may make before its text"
    )
    concurrency: int = Field(default=16, ge=1, description="dialogues in flight")

    @model_validator(mode="after")
    def _given_when_asked(self) -> ReplayConfig:
        if (self.system_prompt == "given") != (self.given_system_prompt is not None):
            raise ValueError("given_system_prompt is the prompt of system_prompt 'given', only")
        return self

    def system_text(self, recorded: object) -> str | None:
        """The candidate's system prompt, given the recorded dialogue's (its metadata's)."""
        if self.system_prompt == "given":
            return self.given_system_prompt
        if self.system_prompt == "recorded" and isinstance(recorded, str) and recorded.strip():
            return recorded
        return None
