"""`scripted:NAME`: a model whose answers come from a Python function, for tests and examples.

Everything around the backend (cache, limits, retries, accounting, structured output) is the
real runner's, so a script exercises the same path as a real model. A script returns the
completion's text (or a whole `Completion`, to set its usage or its `tool_calls`), or raises
`ModelError` to act out a failure. It is sent a request's tools, as a model that takes them.
"""

from __future__ import annotations

from collections.abc import Callable

from dialbench.errors import DialbenchError
from dialbench.llm.base import Completion, ModelAPI, Request, StructuredMode
from dialbench.llm.specs import ModelConfig
from dialbench.schema import Usage

Script = Callable[[Request], str | Completion]
_SCRIPTS: dict[str, Script] = {}


def register_script(name: str, script: Script) -> str:
    """Make `scripted:NAME` answer with `script` (replacing an earlier one); returns the spec."""
    _SCRIPTS[name] = script
    return f"scripted:{name}"


class ScriptedAPI(ModelAPI):
    """Answers each request with the registered script; `requests` lists what it was asked."""

    takes_tools = True

    def __init__(self, config: ModelConfig) -> None:
        name = config.parsed.model
        if name not in _SCRIPTS:
            raise DialbenchError(f"no script registered as {name!r} (register_script first)")
        self.script = _SCRIPTS[name]
        self.config = config
        self.requests: list[Request] = []
        self.spec = self.endpoint = config.spec
        self.structured_mode: StructuredMode = config.structured_output or "json_schema"

    async def generate(self, request: Request) -> Completion:
        self.requests.append(request)
        answer = self.script(request)
        if isinstance(answer, Completion):
            return answer
        prompt = request.prompt + "".join(m.content for m in request.messages)
        usage = Usage(prompt_tokens=len(prompt.split()), completion_tokens=len(answer.split()))
        return Completion(text=answer, finish_reason="stop", usage=usage, model=self.spec)
