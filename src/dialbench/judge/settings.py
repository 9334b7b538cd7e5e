"""How judges are asked under any protocol: sampling, reasoning, repeated samples, re-asks.
A protocol's own options are its `Options` record (see `judge/protocol.py`)."""

from __future__ import annotations

from pydantic import Field

from dialbench.judge.prompt_language import PromptLanguage
from dialbench.llm.base import ReasoningEffort
from dialbench.llm.structured import DEFAULT_MAX_REASKS
from dialbench.schema import Record


class JudgeSettings(Record):
    """Temperature 0 by default (backends drop it where a model refuses it, as reasoning models
    do). Several samples only differ when the temperature is above 0."""

    temperature: float = Field(default=0.0, ge=0.0)
    reasoning_effort: ReasoningEffort | None = None
    samples: int = Field(default=1, ge=1, le=20, description="independent judgments per item")
    max_tokens: int | None = Field(default=None, ge=1, description="default: the protocol's")
    max_reasks: int = Field(default=DEFAULT_MAX_REASKS, ge=0)
    prompt_language: PromptLanguage = Field(
        default="en",
        exclude_if=lambda language: language == "en",
        description="en: every prompt in English; dialogue: in the dialogue's language where "
        "the protocol has a translation into it (left out of dumps at en, so the runs and "
        "pipeline stages configured before it existed keep their hashes)",
    )
    fence: bool = Field(
        default=False,
        exclude_if=lambda fence: not fence,
        description="the judged text neutralised and fenced as data (`judge/fencing.py`); left "
        "out of dumps when off, so runs configured before it keep their hashes",
    )
