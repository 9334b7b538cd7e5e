"""What BotChat's self-chat is asked for, as `dialbench selfchat` and the pipeline's `selfchat`
stage give it to `botchat.api.selfchat`."""

from __future__ import annotations

from pydantic import Field

from dialbench.llm.base import GenerationParams
from dialbench.llm.specs import ModelConfig
from dialbench.schema import Record

DEFAULT_N = 16


class SelfChatConfig(Record):
    """Which ChatSEEDs, which models, how long."""

    models: list[ModelConfig] = Field(min_length=1)
    n: int = Field(default=DEFAULT_N, ge=1, description="utterances per dialogue, seed included")
    seeds: str = Field(default="mutual", min_length=1, description="source of the seed dialogues")
    limit: int | None = Field(default=None, ge=1, description="only the first K ChatSEEDs")
    min_seed_utterances: int = Field(
        default=0, ge=0, description="only seeds whose human dialogue has at least this many"
    )
    params: GenerationParams = Field(
        default_factory=lambda: GenerationParams(max_tokens=128, temperature=0.0)
    )
    context_tokens: int | None = Field(
        default=None,
        ge=64,
        description="context window for the history rule; default: a local model's n_ctx, "
        "else unlimited",
    )
    concurrency: int = Field(default=16, ge=1, description="dialogues in flight")
