"""Scripted models for tests: the built-in `scripted:NAME` backend with the real runner around
it, answering with a function of the request and keeping every request it was asked."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dialbench.llm.backends.scripted import register_script
from dialbench.llm.base import Completion, Request, StructuredMode
from dialbench.llm.role_model import Model
from dialbench.llm.runner import Runner
from dialbench.llm.specs import ModelConfig

Answer = Callable[[Request], str | Completion]


class ScriptedModel:
    def __init__(
        self, name: str, answer: Answer, structured_output: StructuredMode | None = None
    ) -> None:
        self.name = name
        self.answer = answer
        self.structured_output = structured_output
        self.requests: list[Request] = []

    @property
    def spec(self) -> str:
        return f"scripted:{self.name}"

    def _record(self, request: Request) -> str | Completion:
        self.requests.append(request)
        return self.answer(request)

    def config(self, **fields: Any) -> ModelConfig:
        """The model config of this script (registered now): one attempt per call, no retries."""
        spec = register_script(self.name, self._record)
        defaults = {"max_attempts": 1, "structured_output": self.structured_output}
        return ModelConfig.model_validate({"spec": spec, **defaults, **fields})

    def model(self, runner: Runner, role: str) -> Model:
        """This script as a model of `runner` in a role."""
        return runner.model(self.config(), role)
