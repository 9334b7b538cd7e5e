"""The model providers, one module each: a `ModelAPI` subclass taking a `ModelConfig`. Which
class serves which spec prefix is the `BACKENDS` registry in `llm/specs.py` (a spec's prefix
names its backend); a backend's module is imported only when one of its specs is read, and its
optional package only when one of its models is made."""

from __future__ import annotations

from dialbench.llm.base import ModelAPI
from dialbench.llm.specs import BACKENDS, ModelConfig


def create_api(config: ModelConfig) -> ModelAPI:
    """The backend serving `config`, after checking that its optional package is installed, in
    a version it works with."""
    api_class = BACKENDS.load(config.parsed.backend)
    if api_class.requires is not None:
        api_class.requires.check()
    return api_class(config)  # type: ignore[call-arg]
