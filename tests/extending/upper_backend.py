"""A model backend as a plugin writes one: a `ModelAPI` subclass taking a `ModelConfig`. This one
answers every chat with the last message in capitals, and a JSON request with a fixed verdict."""

from __future__ import annotations

import json

from dialbench.llm.base import Completion, ModelAPI, Request
from dialbench.llm.specs import ModelConfig


class UpperAPI(ModelAPI):
    def __init__(self, config: ModelConfig) -> None:
        self.spec = self.endpoint = config.spec
        self.structured_mode = "json_schema"

    async def generate(self, request: Request) -> Completion:
        if request.json_schema is not None:
            return Completion(text=json.dumps({"winner": "tie"}))
        return Completion(text=request.messages[-1].content.upper(), finish_reason="stop")
