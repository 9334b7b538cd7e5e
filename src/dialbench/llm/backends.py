"""From a model config to the backend that serves it; optional backends are imported lazily."""

from __future__ import annotations

from importlib.util import find_spec

from dialbench.errors import DialbenchError
from dialbench.llm.base import ModelAPI
from dialbench.llm.specs import ModelConfig


class MissingPackageError(DialbenchError):
    """A backend whose Python package is not installed."""


def require(module: str, extra: str) -> None:
    if find_spec(module) is None:
        raise MissingPackageError(
            f"this model needs the {module} package: pip install 'dialbench[{extra}]'"
        )


def create_api(config: ModelConfig) -> ModelAPI:
    backend = config.parsed.backend
    if backend == "local":
        require("llama_cpp", "local")
        from dialbench.llm.local import LocalAPI

        return LocalAPI(config)
    if backend == "litellm":
        require("litellm", "litellm")
        from dialbench.llm.litellm_api import LiteLLMAPI

        return LiteLLMAPI(config)
    from dialbench.llm.openai_compat import OpenAICompatAPI

    return OpenAICompatAPI(config)
