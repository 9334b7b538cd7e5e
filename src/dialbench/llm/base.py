"""The records at the model boundary and the one protocol every backend implements.

A backend turns one `Request` into one `Completion`; everything else (cache, retries, rate limits,
accounting, structured output, yes/no probabilities) is built once on top of that, in the runner.
Keeping the request a single record is what makes it cacheable: its canonical JSON is the key.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

from pydantic import ConfigDict, Field, JsonValue

from dialbench.errors import DialbenchError
from dialbench.schema import Record, Usage

ChatRole = Literal["system", "user", "assistant"]
ReasoningEffort = Literal["minimal", "low", "medium", "high"]
StructuredMode = Literal["json_schema", "json_object", "prompt"]
JsonSchema = dict[str, Any]


class Message(Record):
    """One chat message."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: ChatRole
    content: str


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


class Request(Record):
    """Everything a backend needs for one call, and everything the cache key depends on.

    `sample` numbers independent draws of the same request (pass@N, repeated judgments): it is
    part of the cache key, so N samples are N cached calls rather than one answer repeated.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["chat", "complete"]
    messages: tuple[Message, ...] = ()
    prompt: str = ""
    params: GenerationParams = GenerationParams()
    json_schema: JsonSchema | None = None
    top_logprobs: int | None = Field(default=None, ge=1, le=20)
    sample: int = Field(default=0, ge=0)


class TokenLogprob(Record):
    token: str
    logprob: float


class Completion(Record):
    """What one call produced. `raw` is the provider's response, kept for audit."""

    text: str
    finish_reason: str | None = None
    usage: Usage = Field(default_factory=Usage)
    latency_s: float = Field(default=0.0, ge=0.0)
    model: str = ""
    top_logprobs: list[TokenLogprob] = Field(
        default_factory=list, description="alternatives for the first generated token"
    )
    raw: JsonValue = None
    cached: bool = False


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


class ModelAPI(Protocol):
    """A backend: one model behind one endpoint."""

    @property
    def spec(self) -> str:
        """The model spec string, without secrets; part of every cache key."""

    @property
    def endpoint(self) -> str:
        """Calls to the same endpoint share one concurrency limit and one rate limit."""

    @property
    def structured_mode(self) -> StructuredMode:
        """How JSON output is constrained: provider json_schema, json_object+schema, or prompt."""

    async def generate(self, request: Request) -> Completion:
        """Run one request. Raise `ModelError` on failure, with `retryable` set honestly."""

    async def aclose(self) -> None:
        """Release connections; the backend may be used again afterwards."""
