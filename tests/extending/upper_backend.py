"""A model backend as a plugin writes one: a `ModelAPI` subclass taking a `ModelConfig`, with the
settings of its own that its models take. This one answers every chat with the last message in
capitals, and a JSON request with the verdict its model was configured with."""

from __future__ import annotations

import json
from typing import ClassVar, Literal

from pydantic import Field

from dialbench.llm.base import BackendSettings, Completion, ModelAPI, Request
from dialbench.llm.specs import ModelConfig


class UpperSettings(BackendSettings):
    verdict: Literal["first", "second", "tie"] = Field(
        default="tie", description="the winner it names in every pairwise answer"
    )


class UpperAPI(ModelAPI):
    Settings: ClassVar[type[BackendSettings]] = UpperSettings

    def __init__(self, config: ModelConfig) -> None:
        self.verdict = config.settings_as(UpperSettings).verdict
        self.spec = self.endpoint = config.spec
        self.structured_mode = "json_schema"

    async def generate(self, request: Request) -> Completion:
        if request.json_schema is not None:
            return Completion(text=json.dumps({"winner": self.verdict}))
        return Completion(text=request.messages[-1].content.upper(), finish_reason="stop")
