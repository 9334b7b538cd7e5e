"""The backends by spec prefix: a new provider is one module with a `ModelAPI` class taking a
`ModelConfig`, and one line in `BACKENDS`. A backend's module is imported only when one of its
models is created, so an optional backend's package is needed only by those who use it."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from importlib.util import find_spec
from typing import TYPE_CHECKING, Any

from dialbench.errors import DialbenchError
from dialbench.llm.base import ModelAPI

if TYPE_CHECKING:
    from dialbench.llm.specs import ModelConfig


class MissingPackageError(DialbenchError):
    """A backend whose Python package is not installed."""


@dataclass(frozen=True)
class Backend:
    """`api`: the `module:Class` serving it. `endpoint_in_spec`: the spec is `URL#model`.
    `package` and `extra`: what `pip install 'dialbench[extra]'` brings, when it is optional."""

    api: str
    endpoint_in_spec: bool = False
    package: str | None = None
    extra: str | None = None
    local: bool = False


BACKENDS: dict[str, Backend] = {
    "local": Backend(
        "dialbench.llm.local:LocalAPI", package="llama_cpp", extra="local", local=True
    ),
    "openai": Backend("dialbench.llm.openai_compat:OpenAICompatAPI"),
    "openai-compat": Backend("dialbench.llm.openai_compat:OpenAICompatAPI", endpoint_in_spec=True),
    "pool": Backend("dialbench.llm.pool:PoolAPI"),
    "litellm": Backend("dialbench.llm.litellm_api:LiteLLMAPI", package="litellm", extra="litellm"),
    "scripted": Backend("dialbench.llm.scripted:ScriptedAPI"),
}


def require(module: str, extra: str) -> None:
    if find_spec(module) is None:
        raise MissingPackageError(
            f"this model needs the {module} package: pip install 'dialbench[{extra}]'"
        )


def create_api(config: ModelConfig) -> ModelAPI:
    backend = BACKENDS[config.parsed.backend]
    if backend.package is not None and backend.extra is not None:
        require(backend.package, backend.extra)
    module, _, name = backend.api.partition(":")
    api_class: Any = getattr(import_module(module), name)
    api: ModelAPI = api_class(config)
    return api
