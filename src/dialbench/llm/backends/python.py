"""`python:MODULE:FUNCTION`: a chatbot written as a Python function, sync or async.

The function takes one `BotRequest` and returns the reply's text (or a `BotReply`, which may
call the request's tools instead). MODULE is imported from the current directory first, then the
installed packages, when the model is made, so a missing module or function, or a function that
cannot take the request, is an error naming the spec before any call. A sync function runs on
daemon threads, as many as the model's concurrency, so a bot that blocks (an HTTP client, a
database) never stalls the other dialogues, and one that hangs past its time-out is abandoned
and never keeps the command from ending. An exception it raises is retried like a 5xx, then
recorded as the call's failure.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import os
import re
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any, ClassVar

from dialbench.llm.base import (
    BackendSettings,
    Completion,
    ModelAPI,
    ModelError,
    ParsedSpec,
    Request,
    RequestKind,
)
from dialbench.llm.bots import BotRequest, BotSettings, bot_completion, bot_request
from dialbench.llm.daemon_threads import DaemonThreads, abandon
from dialbench.llm.specs import ModelConfig, ModelSpecError

PYTHON_PATH = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")


def load_bot_function(spec: str, path: str) -> Callable[[BotRequest], Any]:
    """The function `MODULE:FUNCTION` names, checked to take one argument."""
    module_name, _, attribute = path.partition(":")
    here = os.getcwd()
    if here not in sys.path:
        sys.path.insert(0, here)  # as `python -m` does: the bot's own folder comes first
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name is not None and f"{module_name}.".startswith(f"{error.name}."):
            raise ModelSpecError(
                f"model spec {spec!r}: no module {module_name!r} in {here} or the installed "
                "packages"
            ) from None
        raise ModelSpecError(f"model spec {spec!r}: importing {module_name}: {error}") from None
    except Exception as error:
        raise ModelSpecError(
            f"model spec {spec!r}: importing {module_name} raised {type(error).__name__}: {error}"
        ) from None
    found: object = module
    for part in attribute.split("."):
        if not hasattr(found, part):
            raise ModelSpecError(
                f"model spec {spec!r}: {module_name} ({module.__file__}) has no {attribute!r}"
            )
        found = getattr(found, part)
    if not callable(found):
        raise ModelSpecError(f"model spec {spec!r}: {attribute!r} is not a function")
    try:
        inspect.signature(found).bind(None)
    except TypeError:
        raise ModelSpecError(
            f"model spec {spec!r}: {attribute}{inspect.signature(found)} must take one "
            "argument, the turn's BotRequest (dialbench.llm.bots)"
        ) from None
    except ValueError:  # a builtin without a signature: calling it will tell
        pass
    return found


class PythonAPI(ModelAPI):
    """A chatbot of your own as a Python function: `python:MODULE:FUNCTION`."""

    Settings: ClassVar[type[BackendSettings]] = BotSettings
    own_bot: ClassVar[bool] = True
    kinds: ClassVar[frozenset[RequestKind]] = frozenset({"chat"})
    takes_tools = True

    def __init__(self, config: ModelConfig) -> None:
        self.spec = self.endpoint = config.spec
        self.function = load_bot_function(config.spec, config.parsed.model)
        self.is_async = inspect.iscoroutinefunction(self.function)
        self.stateful = config.settings_as(BotSettings).stateful
        self.timeout_s = config.timeout_s
        self.structured_mode = config.structured_output or "prompt"
        self.threads = None if self.is_async else DaemonThreads(config.concurrency, "python-bot")

    @classmethod
    def parse_spec(cls, backend: str, rest: str, shown: str) -> ParsedSpec:
        """`MODULE:FUNCTION`, both Python names; whether they exist is found when the bot is
        made."""
        if not PYTHON_PATH.fullmatch(rest):
            raise ModelSpecError(
                f"model spec {shown!r}: write {backend}:<module>:<function>, e.g. "
                f"{backend}:mybot:reply"
            )
        return super().parse_spec(backend, rest, shown)

    async def generate(self, request: Request) -> Completion:
        asked = bot_request(self.spec, request, stateful=self.stateful)
        started = time.perf_counter()
        try:
            async with asyncio.timeout(self.timeout_s):
                answer = await self._call(asked)
        except ModelError:
            raise
        except TimeoutError as error:
            raise ModelError(f"no reply within {self.timeout_s:g}s", retryable=True) from error
        except Exception as error:
            raise ModelError(f"{type(error).__name__}: {error}", retryable=True) from error
        return bot_completion(self.spec, answer, time.perf_counter() - started)

    async def _call(self, asked: BotRequest) -> Any:
        if self.threads is None:
            return await self.function(asked)
        running = self.threads.submit(partial(self.function, asked))
        try:
            answer = await asyncio.wrap_future(running)
        except asyncio.CancelledError:
            if not running.cancel():  # started: its thread goes on, waited for no longer
                abandon(self.spec, self.timeout_s, running)
            raise
        if inspect.isawaitable(answer):  # an object whose __call__ is async, a partial of one
            answer = await answer
        return answer
