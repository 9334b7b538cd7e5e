"""What a judging protocol is: the structured questions it asks about a dialogue, and how the
validated answers become one judgment's result.

A protocol knows nothing of models, caches or the store; `run.py` does the asking and storing.
One task is one judgment; a task may need several questions (submetrics asks understandability
without the context and sensibleness with it), and its result exists only when all are answered.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import ClassVar

from pydantic import Field, JsonValue

from dialbench.judge.settings import JudgeSettings
from dialbench.llm.base import GenerationParams, JsonSchema, Message
from dialbench.prompts import Prompt
from dialbench.schema import Dialogue, Record, Target

Result = dict[str, JsonValue]


class Question(Record):
    """One structured call: messages and the JSON schema the answer must satisfy."""

    name: str
    messages: tuple[Message, ...]
    json_schema: JsonSchema
    params: GenerationParams


class Task(Record):
    """One judgment to make: its target and the questions it needs."""

    target: Target
    questions: list[Question] = Field(min_length=1)
    prompt_hashes: dict[str, str] = Field(default_factory=dict)


def enum_of(values: range | list[int]) -> JsonSchema:
    """Bounded integers as an enum: llama.cpp's grammar ignores minimum and maximum."""
    return {"type": "integer", "enum": list(values)}


def hashes(*prompts: Prompt) -> dict[str, str]:
    return {p.name: p.sha256 for p in prompts}


class JudgeProtocol(ABC):
    name: ClassVar[str]
    description: ClassVar[str]
    default_max_tokens: ClassVar[int]

    def __init__(self, settings: JudgeSettings) -> None:
        self.settings = settings

    @property
    def params(self) -> GenerationParams:
        return GenerationParams(
            max_tokens=self.settings.max_tokens or self.default_max_tokens,
            temperature=self.settings.temperature,
            reasoning_effort=self.settings.reasoning_effort,
        )

    @abstractmethod
    def tasks(self, dialogue: Dialogue) -> list[Task]:
        """The judgments this protocol makes about one dialogue (none when nothing applies)."""

    @abstractmethod
    def result(self, answers: Mapping[str, JsonValue]) -> Result:
        """One judgment's result from its schema-valid answers, keyed by question name."""
