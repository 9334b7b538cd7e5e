"""The embedded default: GGUF models run in-process by llama.cpp (`llama-cpp-python`).

A model file is loaded once per process and shared by every role that names it. llama.cpp is
synchronous and one context serves one call at a time, so calls run in a worker thread under
the model's lock and the event loop stays free for HTTP backends running alongside.
A chat call that asks for log-probabilities reads them from the raw logits of each generated
position as it is sampled (`_TopTokens`). A completion call takes llama-cpp-python's own, which
need llama.cpp to keep the logits of every position (`logits_all`) and slow prompt processing,
so a second context with it is opened only for those; both contexts map the same weights.
A chat call's tools reach a model through the GGUF's own chat template, which llama-cpp-python
renders with them (Qwen2.5's speaks tools); the calls it writes in its text are read out of it
(`hermes_tool_calls.py`).
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import json
import math
import os
import sys
import threading
import time
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np
import numpy.typing as npt
from pydantic import Field

from dialbench.llm.backends.generation_queue import GenerationQueue
from dialbench.llm.base import (
    BackendSettings,
    Completion,
    Message,
    ModelAPI,
    ModelError,
    Request,
    StructuredMode,
    ToolCall,
)
from dialbench.llm.hermes_tool_calls import split_tool_calls
from dialbench.llm.openai_format import completion_from_response
from dialbench.llm.packaged import PACKAGED_MODELS, ensure_assembled
from dialbench.llm.specs import ModelConfig, ModelSpecError
from dialbench.llm.stopping import StopRequested, stop_requested
from dialbench.registry import Requirement

if TYPE_CHECKING:
    from llama_cpp import Llama
    from llama_cpp._utils import suppress_stdout_stderr


def _never_suppress(self: suppress_stdout_stderr, disable: bool = True) -> None:
    """llama-cpp-python quiets a model's loading by pointing the process's stdout and stderr at
    /dev/null: whatever another thread printed meanwhile (a pipeline's progress lines) was lost.
    Its suppression stays disabled; `_show_only_errors` keeps llama.cpp's own log to errors."""
    self.disable = True


GGML_LOG_ERROR, GGML_LOG_CONTINUE = 4, 5  # ggml's log levels since DEBUG became 1
_log_state: dict[str, Any] = {}


def _show_only_errors() -> None:
    """llama.cpp's errors on stderr, and nothing else of its log. llama-cpp-python's own log
    callback reads ggml's levels as they were before DEBUG = 1 came first: with `verbose=False`
    it printed every warning (each model load's "control-looking token ... probably a bug in the
    model") and hid the errors (why a model file failed to load)."""
    import llama_cpp

    if "callback" in _log_state:  # a first load that failed installed it already
        return

    @llama_cpp.llama_log_callback  # type: ignore[untyped-decorator]
    def log(level: int, text: bytes, _user_data: ctypes.c_void_p) -> None:
        if level != GGML_LOG_CONTINUE:
            _log_state["level"] = level
        if _log_state.get("level", 0) >= GGML_LOG_ERROR:
            print(text.decode("utf-8", errors="replace"), end="", file=sys.stderr, flush=True)

    _log_state["callback"] = log  # ctypes calls it from C: it must outlive this function
    llama_cpp.llama_log_set(log, ctypes.c_void_p(0))


# Every generation runs on this one thread, in the order that keeps the prompt cache warm.
_GENERATION = GenerationQueue("llama.cpp")
# How much of a prompt's start (of its first two messages) tells the calls that share their
# instructions: a stage's.
AFFINITY_CHARACTERS = 400


@dataclass(frozen=True)
class _ContextKey:
    path: Path
    n_ctx: int
    n_threads: int
    chat_format: str | None
    logits_all: bool


@dataclass
class _Context:
    llama: Llama
    lock: threading.Lock


_contexts: dict[_ContextKey, _Context] = {}
_contexts_lock = threading.Lock()


def _close_contexts() -> None:
    """At exit, while llama_cpp is still whole: freed during interpreter teardown, a context
    would call into a module already emptied."""
    with _contexts_lock:
        for context in _contexts.values():
            context.llama.close()
        _contexts.clear()


def _context(key: _ContextKey) -> _Context:
    """The process-wide llama.cpp context for a model file and settings, loaded on first use."""
    from llama_cpp import Llama  # the optional extra `local`, imported with the first model
    from llama_cpp._utils import suppress_stdout_stderr

    suppress_stdout_stderr.__init__ = _never_suppress  # type: ignore[method-assign]
    with _contexts_lock:
        if not _contexts:
            atexit.register(_close_contexts)
            _show_only_errors()
        if key not in _contexts:
            llama = Llama(
                model_path=str(key.path),
                n_ctx=key.n_ctx,
                n_threads=key.n_threads,
                n_threads_batch=key.n_threads,
                chat_format=key.chat_format,
                logits_all=key.logits_all,
                verbose=False,
            )
            _contexts[key] = _Context(llama, threading.Lock())
        return _contexts[key]


def embedding_model(
    name: str, n_ctx: int, n_threads: int, pooling: Literal["mean", "last"] = "mean"
) -> Llama:
    """A model loaded to embed texts, quiet as generation's are: its own, since an embedding
    context computes no logits to share with generation. `mean` pools the hidden states of every
    token; `last` keeps the last token's, the only one a causal model computed having read all."""
    from llama_cpp import LLAMA_POOLING_TYPE_LAST, LLAMA_POOLING_TYPE_MEAN, Llama
    from llama_cpp._utils import suppress_stdout_stderr

    suppress_stdout_stderr.__init__ = _never_suppress  # type: ignore[method-assign]
    _show_only_errors()
    path, _ = resolve_model_file(name)
    return Llama(
        model_path=str(path),
        embedding=True,
        pooling_type=LLAMA_POOLING_TYPE_LAST if pooling == "last" else LLAMA_POOLING_TYPE_MEAN,
        n_ctx=n_ctx,
        n_batch=n_ctx,
        n_threads=n_threads,
        n_threads_batch=n_threads,
        verbose=False,
    )


def resolve_model_file(name: str) -> tuple[Path, str | None]:
    """The GGUF file for a packaged model name or a path, and its explicit chat format if any."""
    if name in PACKAGED_MODELS:
        packaged = PACKAGED_MODELS[name]
        return ensure_assembled(packaged), packaged.chat_format
    path = Path(name).expanduser()
    if path.suffix == ".gguf" or "/" in name:
        if not path.is_file():
            raise ModelSpecError(f"local model file {path} does not exist")
        return path.resolve(), None
    known = ", ".join(PACKAGED_MODELS)
    raise ModelSpecError(
        f"unknown local model {name!r}: use a packaged model ({known}) or a path to a .gguf file"
    )


class _TopTokens:
    """A logits processor that keeps the top-k log-probabilities of each generated position, in
    the shape of an OpenAI chat response's `logprobs.content`.

    It sees the model's raw logits before the grammar masks them, as llama.cpp's own
    log-probabilities are computed; those need `logits_all` and sort the whole vocabulary in
    Python for every generated token, about three times slower per judge call on two cores. A
    position's token is known when the next one is sampled (the last of `input_ids` then), so
    each position is closed one step late; `finish` closes the last one from the ids evaluated.
    """

    def __init__(self, llama: Llama, k: int) -> None:
        self.llama, self.k = llama, k
        self.content: list[dict[str, Any]] = []
        self._open: tuple[int, npt.NDArray[np.float32], float, npt.NDArray[np.intp]] | None = None

    def __call__(
        self, input_ids: npt.NDArray[np.intc], scores: npt.NDArray[np.float32]
    ) -> npt.NDArray[np.float32]:
        self.finish(input_ids)
        logits = np.array(scores, dtype=np.float32)
        peak = float(logits.max())
        total = peak + math.log(float(np.exp(logits - peak, dtype=np.float64).sum()))
        top = np.argpartition(logits, -self.k)[-self.k :]
        self._open = (len(input_ids), logits, total, top[np.argsort(-logits[top])])
        return scores

    def finish(self, input_ids: npt.NDArray[np.intc], text: str | None = None) -> None:
        """Close the open position if its token is among `input_ids`; else, given the whole
        `text`, if what the closed positions leave of it is one token (generation stopped
        right after sampling it: `max_tokens`, a one-token yes/no)."""
        if self._open is None:
            return
        position = self._open[0]
        if len(input_ids) > position:
            self._close(input_ids, int(input_ids[position]))
        elif text is not None:
            written = "".join(entry["token"] for entry in self.content)
            rest = text.removeprefix(written) if text.startswith(written) else ""
            ids = self.llama.tokenize(rest.encode("utf-8"), add_bos=False) if rest else []
            if len(ids) == 1:
                self._close(input_ids, ids[0])

    def _close(self, input_ids: npt.NDArray[np.intc], chosen: int) -> None:
        assert self._open is not None
        position, logits, total, top = self._open
        previous = [int(i) for i in input_ids[:position]]

        def text(token: int) -> str:
            piece = self.llama.detokenize([token], prev_tokens=previous)
            return piece.decode("utf-8", errors="ignore")

        self.content.append(
            {
                "token": text(chosen),
                "logprob": float(logits[chosen]) - total,
                "top_logprobs": [
                    {"token": text(int(i)), "logprob": float(logits[i]) - total} for i in top
                ],
            }
        )
        self._open = None


class LocalSettings(BackendSettings):
    """A llama.cpp model's context: its size, its threads, and the chat format of a GGUF file
    without a template."""

    chat_format: str | None = Field(
        default=None, description="llama.cpp chat format for GGUF files without a template"
    )
    n_ctx: int = Field(default=4096, ge=256, description="the context window, in tokens")
    n_threads: int | None = Field(
        default=None,
        ge=1,
        description="llama.cpp threads; default every core this process may run on (its CPU "
        "affinity); lower it when processes share cores",
    )

    def context_window(self) -> int:
        return self.n_ctx


def template_message(message: Message) -> dict[str, Any]:
    """A message as a Hugging Face chat template reads it: its content text, never null
    (templates add it to strings), and a call's arguments as the object transformers passes,
    since the template writes them with `tojson` (JSON text would be quoted twice)."""
    dumped = message.model_dump() | {"content": message.content}
    if message.tool_calls:
        dumped["tool_calls"] = [_template_call(call) for call in message.tool_calls]
    return dumped


def _template_call(call: ToolCall) -> dict[str, Any]:
    """The call in the OpenAI shape, its arguments parsed; arguments that are no JSON stay
    text."""
    shape = call.model_dump()
    with contextlib.suppress(json.JSONDecodeError):
        shape["function"]["arguments"] = json.loads(call.arguments)
    return shape


def _read_tool_calls(response: Any, offered: Collection[str]) -> None:
    """The calls a model wrote in its reply's text moved into the response's message, as an
    OpenAI server returns them."""
    choice = response["choices"][0]
    text, calls = split_tool_calls(choice["message"]["content"] or "", offered)
    if calls:
        choice["message"] |= {"content": text, "tool_calls": [c.model_dump() for c in calls]}
        choice["finish_reason"] = "tool_calls"


class LocalAPI(ModelAPI):
    """A GGUF model in this process: `local:NAME` (a packaged model) or `local:PATH.gguf`."""

    Settings: ClassVar[type[BackendSettings]] = LocalSettings
    in_process: ClassVar[bool] = True
    requires: ClassVar[Requirement | None] = Requirement(
        "llama_cpp", "local", minimum="0.3.9", distribution="llama-cpp-python"
    )

    def __init__(self, config: ModelConfig) -> None:
        self.settings = config.settings_as(LocalSettings)
        name = config.parsed.model
        self.path, packaged_format = resolve_model_file(name)
        self.chat_format = self.settings.chat_format or packaged_format
        self.spec = f"local:{name}" if name in PACKAGED_MODELS else f"local:{self.path}"
        self.endpoint = self.spec  # one llama.cpp context serves one call at a time
        # The GGUF's own template is given the tools (a named chat format's formatter ignores
        # them); one that never mentions tools renders without them.
        self.takes_tools = self.chat_format is None
        self.structured_mode: StructuredMode = "json_object"

    def context(self, *, logits_all: bool = False) -> _Context:
        threads = self.settings.n_threads or len(os.sched_getaffinity(0))
        key = _ContextKey(self.path, self.settings.n_ctx, threads, self.chat_format, logits_all)
        return _context(key)

    async def generate(self, request: Request) -> Completion:
        starts = [m.content[:AFFINITY_CHARACTERS] for m in request.messages[:2]]
        prompt = request.prompt[:AFFINITY_CHARACTERS]
        affinity = (self.path, request.kind, prompt, *starts)
        return await _GENERATION.run(affinity, lambda: self._started(request))

    def _started(self, request: Request) -> Completion:
        """A waiting call, when its turn comes: none starts once a stop was asked for."""
        if stop_requested():
            raise StopRequested(self.spec)
        return self._generate(request)

    def _generate(self, request: Request) -> Completion:
        context = self.context(
            logits_all=request.top_logprobs is not None and request.kind != "chat"
        )
        params = request.params
        sampling: dict[str, Any] = {
            "max_tokens": params.max_tokens,
            "temperature": params.temperature,
            "stop": list(params.stop),
            "seed": params.seed,
        }
        if params.top_p is not None:
            sampling["top_p"] = params.top_p
        if params.presence_penalty is not None:
            sampling["presence_penalty"] = params.presence_penalty
        with context.lock:
            started = time.perf_counter()
            try:
                if request.kind == "chat":
                    response = self._chat(context.llama, request, sampling)
                else:
                    response = context.llama.create_completion(
                        prompt=request.prompt, logprobs=request.top_logprobs, **sampling
                    )
            except (ValueError, RuntimeError) as error:
                raise ModelError(f"llama.cpp: {error}") from error
            latency = time.perf_counter() - started
        # llama.cpp returns log-probabilities as numpy floats: make the response plain JSON.
        plain = json.loads(json.dumps(response, default=float))
        return completion_from_response(plain, latency, chat=request.kind == "chat")

    def _chat(self, llama: Llama, request: Request, sampling: dict[str, Any]) -> Any:
        if self.chat_format is None and "tokenizer.chat_template" not in llama.metadata:
            raise ModelError(
                f"{self.path.name} has no chat template: set chat_format in the model config "
                "(e.g. chatml, gemma, llama-3), or use raw completion"
            )
        if request.json_schema is not None:
            sampling["response_format"] = {"type": "json_object", "schema": request.json_schema}
        from llama_cpp import LogitsProcessorList

        if request.tools and self.takes_tools:
            sampling["tools"] = [tool.model_dump() for tool in request.tools]
        top = _TopTokens(llama, request.top_logprobs) if request.top_logprobs else None
        response: Any = llama.create_chat_completion(
            messages=[template_message(m) for m in request.messages],  # type: ignore[misc]
            logits_processor=LogitsProcessorList([top]) if top else None,
            **sampling,
        )
        if top is not None:
            top.finish(
                llama.input_ids[: llama.n_tokens], response["choices"][0]["message"]["content"]
            )
            response["choices"][0]["logprobs"] = {"content": top.content}
        if "tools" in sampling:
            _read_tool_calls(response, {tool.name for tool in request.tools})
        return response
