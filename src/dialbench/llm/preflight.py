"""Every model of a job checked before the job's first call: a missing key, package, model file
or server is found in a second, not after minutes of work by the models that are there.

A backend finds most problems when it is made (`create_api`), the rest in its `check()` (a
server that refuses connections). Making one is cheap: weights load on the first call.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from pydantic import BaseModel

from dialbench.errors import DialbenchError
from dialbench.llm.backends import create_api
from dialbench.llm.redaction import shown_error
from dialbench.llm.specs import ModelConfig
from dialbench.schema import Record


class ModelProblem(Record):
    """Why one model of a job cannot answer; `where` names its place (a stage, a role)."""

    spec: str
    problem: str
    where: str = ""

    def line(self) -> str:
        """The problem, after the model's spec unless it names the spec itself."""
        place = f" ({self.where})" if self.where else ""
        if self.spec in self.problem:
            return f"{self.problem}{place}"
        return f"{self.spec}{place}: {self.problem}"


class ModelsUnavailable(DialbenchError):
    """Models a job needs cannot answer; nothing was started."""

    def __init__(self, problems: list[ModelProblem]) -> None:
        self.problems = problems
        lines = [problem.line() for problem in problems]
        if len(lines) == 1:
            super().__init__(f"{lines[0]} (nothing was started)")
        else:
            listed = "".join(f"\n  {line}" for line in lines)
            super().__init__(f"{len(lines)} models cannot answer (nothing was started):{listed}")


def models_in(value: Any) -> Iterator[ModelConfig]:
    """Every model config in a job's config record, at any depth (lists, mappings, records)."""
    if isinstance(value, ModelConfig):
        yield value
    elif isinstance(value, BaseModel):
        for name in type(value).model_fields:
            yield from models_in(getattr(value, name))
    elif isinstance(value, dict):
        for item in value.values():
            yield from models_in(item)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from models_in(item)


def model_problem(config: ModelConfig) -> str | None:
    """Why this model cannot answer, or None when nothing stops it."""
    try:
        api = create_api(config)
    except DialbenchError as error:
        return str(error)
    try:
        api.check()
    except DialbenchError as error:
        return shown_error(error, api.secrets)
    return None


Checked = dict[ModelConfig, str | None]
"""Models already checked in one pre-flight, and what was found: several stages of a pipeline
often name the same model."""


def model_problems(
    configs: Iterable[ModelConfig], where: str = "", checked: Checked | None = None
) -> list[ModelProblem]:
    """The problems of each distinct model, in the order the models are named; a model in
    `checked` is not checked again."""
    checked = {} if checked is None else checked
    problems = []
    for config in dict.fromkeys(configs):
        if config not in checked:
            checked[config] = model_problem(config)
        if (problem := checked[config]) is not None:
            problems.append(ModelProblem(spec=config.spec, problem=problem, where=where))
    return problems


def check_models(config: Any) -> None:
    """Raise `ModelsUnavailable`, naming each problem, unless every model of `config` can answer."""
    if problems := model_problems(models_in(config)):
        raise ModelsUnavailable(problems)
