"""The records at the model boundary and the one protocol every backend implements.

A backend turns one `Request` into one `Completion`; everything else (cache, retries, rate limits,
accounting, structured output, yes/no probabilities) is built once on top of that, in the runner.
Keeping the request a single record is what makes it cacheable: its canonical JSON is the key.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar, Literal, Protocol

from pydantic import (
    ConfigDict,
    Field,
    JsonValue,
    SerializerFunctionWrapHandler,
    ValidationInfo,
    field_serializer,
    model_serializer,
    model_validator,
)

from dialbench.errors import DialbenchError
from dialbench.hashing import canonical_json
from dialbench.registry import Requirement
from dialbench.schema import Record, Usage, left_out_when_none

ChatRole = Literal["system", "user", "assistant", "tool"]
RequestKind = Literal["chat", "complete", "translate"]
ReasoningEffort = Literal["minimal", "low", "medium", "high"]
StructuredMode = Literal["json_schema", "json_object", "prompt"]
JsonSchema = dict[str, Any]


def _is_empty(value: tuple[Any, ...]) -> bool:
    return not value


def _from_wire(data: Any) -> Any:
    """A tool's or a call's fields from the OpenAI shape, which nests them in `function`; the
    flat fields (keyword arguments) pass as they are."""
    if isinstance(data, dict) and isinstance(data.get("function"), dict):
        return {k: v for k, v in data.items() if k not in ("type", "function")} | data["function"]
    return data


class ToolCall(Record):
    """A function call a model asked for, in a reply or in a dialogue's history. It dumps (and
    is read) in the OpenAI shape, `{"id", "type": "function", "function": {"name",
    "arguments"}}`, which is what every OpenAI-compatible server takes back in a history."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    name: str
    arguments: str = Field(description="the arguments' JSON text, as OpenAI sends it")

    @model_validator(mode="before")
    @classmethod
    def _read_wire(cls, data: Any) -> Any:
        """Also arguments as a JSON object, as some servers and logs give them: written as
        JSON text, so one call has one form whatever sent it."""
        data = _from_wire(data)
        if isinstance(data, dict) and not isinstance(data.get("arguments", ""), str):
            data = data | {"arguments": json.dumps(data["arguments"], ensure_ascii=False)}
        return data

    @model_serializer
    def _wire(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


class ToolDefinition(Record):
    """A function a chat request offers the model. It dumps (and is read) in the OpenAI shape,
    `{"type": "function", "function": {"name", "description", "parameters"}}`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    description: str = ""
    parameters: JsonSchema = Field(description="a JSON schema of the arguments")

    @model_validator(mode="before")
    @classmethod
    def _read_wire(cls, data: Any) -> Any:
        return _from_wire(data)

    @model_serializer
    def _wire(self) -> dict[str, Any]:
        function = {"name": self.name, "description": self.description}
        return {"type": "function", "function": function | {"parameters": self.parameters}}


class Message(Record):
    """One chat message: an assistant's may hold the tool calls it made, and a tool message is
    one call's result. A message without either dumps as messages did before tools existed, so
    the cache keys of calls made then still match; one with them dumps in the OpenAI shape."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: ChatRole
    content: str
    tool_calls: tuple[ToolCall, ...] = Field(default=(), exclude_if=_is_empty)
    tool_call_id: str | None = left_out_when_none(
        min_length=1, description="a tool message's: the call it answers"
    )

    @model_validator(mode="before")
    @classmethod
    def _content_may_be_null(cls, data: Any) -> Any:
        """OpenAI writes `content: null` for an assistant that only called tools (and so does
        the dump)."""
        if isinstance(data, dict) and "content" in data and data["content"] is None:
            return data | {"content": ""}
        return data

    @model_validator(mode="after")
    def _tool_fields_fit_the_role(self) -> Message:
        if self.tool_calls and self.role != "assistant":
            raise ValueError(f"a {self.role} message holds no tool calls (an assistant's does)")
        if (self.role == "tool") != (self.tool_call_id is not None):
            raise ValueError("a tool message, and only a tool message, names its tool_call_id")
        return self

    @field_serializer("content")
    def _null_beside_calls(self, content: str) -> str | None:
        """Null beside calls where there is no text, as OpenAI writes such a message."""
        return None if self.tool_calls and not content else content


class GenerationParams(Record):
    """Sampling settings. Backends drop the ones a model rejects (e.g. temperature on o-series)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_tokens: int = Field(default=256, ge=1)
    temperature: float = Field(default=0.0, ge=0.0)
    top_p: float | None = Field(default=None, gt=0.0, le=1.0)
    presence_penalty: float | None = Field(
        default=None, ge=-2.0, le=2.0, description="discourages repeating tokens already used"
    )
    stop: tuple[str, ...] = ()
    seed: int | None = 0
    reasoning_effort: ReasoningEffort | None = None


class Conversation(Record):
    """The dialogue a chatbot's call belongs to, for a bot of the user's own (`python:`, `http:`).

    Models never see it, so their cache keys do not hold it. A bot sees `id` and `language`, and
    a stateful bot (its `stateful` setting) also `session`: the session it keeps its history
    under, new for each run that plays the dialogue, so a cached answer is never replayed into a
    session that has not heard the turns before it.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    language: str | None = None
    session: str | None = None


class Request(Record):
    """Everything a backend needs for one call, and everything the cache key depends on.

    `sample` numbers independent draws of the same request (pass@N, repeated judgments): it is
    part of the cache key, so N samples are N cached calls rather than one answer repeated.
    A `translate` request is for machine-translation models (`hf:`): `prompt` is the text, and
    the languages are given in the model's own codes (MBART-50 `de_DE`, NLLB `deu_Latn`), or
    not at all for a model that serves one language pair (Marian).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: RequestKind
    messages: tuple[Message, ...] = ()
    prompt: str = ""
    params: GenerationParams = GenerationParams()
    json_schema: JsonSchema | None = None
    top_logprobs: int | None = Field(default=None, ge=1, le=20)
    sample: int = Field(default=0, ge=0)
    source_language: str | None = Field(default=None, description="translate: the text's code")
    target_language: str | None = Field(default=None, description="translate: the output's code")
    conversation: Conversation | None = Field(
        default=None, description="the dialogue, for a bot of the user's own"
    )
    tools: tuple[ToolDefinition, ...] = Field(
        default=(),
        exclude_if=_is_empty,
        description="chat: functions the model may call; left out of the dump (and the cache "
        "key) when none",
    )

    @model_serializer(mode="wrap")
    def _languages_only_when_set(self, handler: SerializerFunctionWrapHandler) -> Any:
        """A chat or completion dumps as before translations and bots existed, so the cache
        keys of calls made then still match."""
        dumped = handler(self)
        for key in ("source_language", "target_language", "conversation"):
            if dumped.get(key) is None:
                dumped.pop(key, None)
        return dumped


class TokenLogprob(Record):
    token: str
    logprob: float


class GeneratedToken(TokenLogprob):
    """One generated token, with the alternatives the model weighed at its position."""

    top: list[TokenLogprob] = Field(default_factory=list)


class Completion(Record):
    """What one call produced, made fit to store (`reply_text.py`). `raw` is the provider's
    response, kept for audit."""

    text: str
    tool_calls: list[ToolCall] = Field(
        default_factory=list,
        description="the calls the model asked for; its text may then be empty (none in "
        "completions cached before this field existed)",
    )
    finish_reason: str | None = None
    usage: Usage = Field(default_factory=Usage)
    latency_s: float = Field(default=0.0, ge=0.0)
    model: str = ""
    top_logprobs: list[TokenLogprob] = Field(
        default_factory=list, description="alternatives for the first generated token"
    )
    tokens: list[GeneratedToken] = Field(
        default_factory=list,
        description="every generated token with its alternatives, when log-probabilities were "
        "asked for (empty in completions cached before this field existed)",
    )
    raw: JsonValue = Field(
        default=None,
        description="dropped where the text was cut, or it is larger than the model's "
        "max_reply_bytes",
    )
    cached: bool = False
    replaced_unencodable: bool = Field(
        default=False,
        description="characters UTF-8 cannot encode (lone surrogates) were replaced by U+FFFD",
    )
    truncated_from_bytes: int | None = Field(
        default=None,
        description="the text's UTF-8 size before it was cut to the model's max_reply_bytes",
    )


class ModelError(DialbenchError):
    """A model call failed. `retryable` says whether trying again may succeed."""

    def __init__(
        self, message: str, *, retryable: bool = False, retry_after_s: float | None = None
    ) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.retry_after_s = retry_after_s


class CallDeferred(DialbenchError):
    """A call collected into a provider batch (`batch.py`) instead of being made now."""

    def __init__(self, spec: str) -> None:
        super().__init__(f"{spec}: deferred to a batch")


class BatchRoutes(Protocol):
    """The HTTP routes of OpenAI's Files and Batch APIs that a provider batch uses."""

    async def post(self, path: str, body: Mapping[str, Any]) -> Any: ...

    async def get(self, path: str) -> Any: ...

    async def get_bytes(self, path: str) -> bytes: ...

    async def upload(
        self, path: str, fields: Mapping[str, str], name: str, content: bytes
    ) -> Any: ...


class BatchEndpoint(Protocol):
    """Where a model's provider batches go (`batch.py`): the body each call would send, and the
    endpoint's routes."""

    @property
    def endpoint(self) -> str: ...

    @property
    def http(self) -> BatchRoutes: ...

    def request_body(self, request: Request) -> tuple[str, dict[str, Any]]: ...


class ParsedSpec(Record):
    """A spec's parts: its backend, its model, and the endpoint URLs a spec may name (an
    `openai-compat:` server's, a `pool:`'s replicas)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    backend: str
    model: str
    base_url: str | None = None
    endpoints: tuple[str, ...] = ()


class BackendSettings(Record):
    """A backend's own settings (its `ModelAPI.Settings`): what only its models take, written
    beside `spec` in a model's config (`{spec: local:qwen2.5-0.5b, n_ctx: 2048}`) and validated
    by this record, so a setting of another backend, or a typo, is an error at its line.

    Empty for most backends. A validator that needs the model's spec as well reads it with
    `spec_of(info)` (a pool checks that its replicas are named once).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    def __hash__(self) -> int:
        """Hashable like the `ModelConfig` holding it (a runner keys its models by config),
        though a setting may be a mapping (an http: bot's body template)."""
        return hash(canonical_json(self.model_dump(mode="json")))

    def replicas(self, spec: str) -> tuple[str, ...]:
        """The endpoints a model's calls spread over, each paced by the backend itself (a
        pool's replicas), with the credentials `spec` was given; () for one endpoint, which
        the runner paces."""
        return ()

    def context_window(self) -> int | None:
        """The tokens a model's context holds, where its settings fix them (llama.cpp's)."""
        return None


def spec_of(info: ValidationInfo) -> str | None:
    """The spec, without credentials, of the model whose settings are being validated
    (`ModelConfig` gives it in the validation context), or None where a settings record is
    validated on its own."""
    context = info.context
    spec = context.get("spec") if isinstance(context, dict) else None
    return spec if isinstance(spec, str) else None


class ModelAPI(ABC):
    """A backend: one model behind one endpoint, made from a `ModelConfig` (`llm/backends/`).

    The class attributes tell the spec parser, the config and the runner what they need before
    any model is made: how a spec after `backend:` reads (`parse_spec`), which settings its
    models take (`Settings`), whether the model runs in this process (one call at a time unless
    configured otherwise), which kinds of request it serves, and which package, from which
    extra and of which version, it needs.
    """

    Settings: ClassVar[type[BackendSettings]] = BackendSettings
    in_process: ClassVar[bool] = False
    kinds: ClassVar[frozenset[RequestKind]] = frozenset({"chat", "complete"})
    requires: ClassVar[Requirement | None] = None
    own_bot: ClassVar[bool] = False
    """A chatbot of the user's own, not a model: it keeps its own instructions (a simulation
    sends it no system prompt) and sees the dialogue a call belongs to (`Conversation`)."""
    stateful: bool = False
    """A chatbot of the user's own that keeps its own history: it sees the dialogue's session."""
    takes_tools: bool = False
    """Whether a chat request's `tools` reach the model, and its tool calls come back in
    `Completion.tool_calls`; a backend that takes none is never sent them (`Model.chat` drops
    them), so a caller that offers tools checks this to know whether they were offered. An
    instance may say otherwise than its class (a local model, by its chat template)."""

    @classmethod
    def parse_spec(cls, backend: str, rest: str, shown: str) -> ParsedSpec:
        """What follows `backend:` in a spec (`rest`), as its parts: the model's name, unless
        the backend reads more from it (an endpoint URL). A spec it cannot read is a
        `ModelSpecError` quoting `shown`, the spec without its credentials, and saying what to
        write."""
        return ParsedSpec(backend=backend, model=rest)

    spec: str
    """The model spec string, without secrets; part of every cache key."""
    endpoint: str
    """Calls to the same endpoint share one concurrency limit and one rate limit."""
    structured_mode: StructuredMode
    """How JSON output is constrained: provider json_schema, json_object+schema, or prompt."""
    secrets: frozenset[str] = frozenset()
    """What this backend sends that no error text may show (its key, its configured headers'
    values): the runner redacts them from every failure (`llm/redaction.py`)."""

    @abstractmethod
    async def generate(self, request: Request) -> Completion:
        """Run one request. Raise `ModelError` on failure, with `retryable` set honestly."""

    async def aclose(self) -> None:  # noqa: B027  (most backends hold nothing to release)
        """Release connections; the backend may be used again afterwards."""

    def batch_target(self) -> BatchEndpoint | None:
        """Where this model's provider batches go, or None: it takes no batches."""
        return None

    def check(self) -> None:  # noqa: B027  (most backends find every problem when made)
        """Raise a `DialbenchError` if the model cannot answer at all (a host that refuses
        connections), found without a model call: every job checks its models before it starts.
        What making the backend already checks (a key, a package, a file) is not repeated."""
