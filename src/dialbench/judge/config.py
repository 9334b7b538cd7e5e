"""What a judging run is asked for: the protocol and its options, the judges, which dialogues,
as `dialbench judge` and the pipeline's `judge` stage give it to `judge.api.judge`."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, JsonValue, field_validator

from dialbench.judge.protocol import JudgeProtocol
from dialbench.judge.registry import get_protocol
from dialbench.judge.settings import JudgeSettings
from dialbench.llm.specs import DEFAULT_LOCAL_MODEL, ModelConfig
from dialbench.schema import LanguageCode, Record, left_out_when_none

DEFAULT_STORE_EVERY = 16


class JudgeConfig(Record):
    """A protocol and its options, judges side by side, what to judge."""

    protocol: str = "issues"
    options: dict[str, JsonValue] = Field(
        default_factory=dict, description="the protocol's own options, checked by it"
    )
    judges: list[ModelConfig] = Field(
        default_factory=lambda: [ModelConfig(spec=DEFAULT_LOCAL_MODEL)], min_length=1
    )
    settings: JudgeSettings = Field(default_factory=JudgeSettings)
    languages: list[LanguageCode] = Field(
        default_factory=list, description="only dialogues in these languages (default: all)"
    )
    sources: list[str] = Field(
        default_factory=list, description="only dialogues from these sources (default: all)"
    )
    limit: int | None = Field(default=None, ge=1, description="at most N dialogues per language")
    examples_from: Path | None = left_out_when_none(
        description="the run directory whose reviewed labels a few_shot=N protocol shows as "
        "examples (default: the judged run)",
    )
    store_every: int = Field(
        default=DEFAULT_STORE_EVERY, ge=1, description="finished judgments stored per transaction"
    )

    @field_validator("judges")
    @classmethod
    def _distinct(cls, judges: list[ModelConfig]) -> list[ModelConfig]:
        specs = [judge.spec for judge in judges]
        if len(set(specs)) != len(specs):
            raise ValueError("the same judge is listed twice")
        return judges

    def build_protocol(self) -> JudgeProtocol:
        return get_protocol(self.protocol, self.settings, self.options)
