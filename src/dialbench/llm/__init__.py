"""The LLM layer: every role (user simulator, chatbot, validator, judge, translator) talks to
models through a `Model` from a `Runner`.

    with Runner("runs/demo") as runner:                  # cache + usage in the run store
        judge = runner.model("local:qwen2.5-0.5b", role="judge")
        reply = judge.chat_sync([{"role": "user", "content": "你好"}])

Each name is imported when first used, so a module of the layer (`llm.progress`) is imported
without the rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dialbench.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from dialbench.llm.base import Completion, GenerationParams, Message, ModelError, Request
    from dialbench.llm.role_model import Model
    from dialbench.llm.runner import CallFailed, Runner
    from dialbench.llm.specs import DEFAULT_LOCAL_MODEL, ModelConfig, ModelSpecError, parse_spec
    from dialbench.llm.structured import StructuredResult
    from dialbench.llm.yesno import YesNo

__all__ = [
    "DEFAULT_LOCAL_MODEL",
    "CallFailed",
    "Completion",
    "GenerationParams",
    "Message",
    "Model",
    "ModelConfig",
    "ModelError",
    "ModelSpecError",
    "Request",
    "Runner",
    "StructuredResult",
    "YesNo",
    "parse_spec",
]

__getattr__ = lazy_exports(
    __name__,
    {
        ".base": ["Completion", "GenerationParams", "Message", "ModelError", "Request"],
        ".role_model": ["Model"],
        ".runner": ["CallFailed", "Runner"],
        ".specs": ["DEFAULT_LOCAL_MODEL", "ModelConfig", "ModelSpecError", "parse_spec"],
        ".structured": ["StructuredResult"],
        ".yesno": ["YesNo"],
    },
)
