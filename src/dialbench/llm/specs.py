"""Model specs: the strings users write in configs and on the command line.

    local:qwen2.5-0.5b                       a packaged model (see `dialbench models`)
    local:/path/to/any.gguf                  any GGUF file
    openai:gpt-4.1                           OpenAI, key from OPENAI_API_KEY
    openai-compat:http://host:8000/v1#name   any OpenAI-compatible server (vLLM, Ollama, ...)
    litellm:anthropic/claude-sonnet-4        through LiteLLM (pip install 'dialbench[litellm]')
    scripted:NAME                            answers from a function registered in-process (tests)

Everything else about a model (key variable, limits, timeouts) is a `ModelConfig` field, so the
spec stays short and never carries a secret.
"""

from __future__ import annotations

from pydantic import ConfigDict, Field

from dialbench.errors import DialbenchError
from dialbench.llm.backends import BACKENDS
from dialbench.llm.base import ReasoningEffort, StructuredMode
from dialbench.schema import Record

DEFAULT_LOCAL_MODEL = "local:qwen2.5-0.5b"


class ModelSpecError(DialbenchError):
    """A model spec string that dialbench cannot read."""


class ParsedSpec(Record):
    model_config = ConfigDict(extra="forbid", frozen=True)

    backend: str
    model: str
    base_url: str | None = None


class ModelConfig(Record):
    """How to reach and pace one model. Only `spec` is required."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    spec: str
    base_url: str | None = Field(
        default=None,
        description="API base URL for litellm models (openai-compat puts it in the spec)",
    )
    api_key_env: str | None = Field(
        default=None, description="name of the environment variable holding the API key"
    )
    max_concurrency: int | None = Field(
        default=None, ge=1, description="calls in flight per endpoint; default 1 local, 32 HTTP"
    )
    requests_per_minute: float | None = Field(default=None, gt=0)
    tokens_per_minute: float | None = Field(default=None, gt=0)
    timeout_s: float = Field(default=120.0, gt=0)
    max_attempts: int = Field(default=6, ge=1, description="tries per call, the first included")
    structured_output: StructuredMode | None = Field(
        default=None,
        description="how to ask for JSON: json_schema (default for HTTP), json_object+schema "
        "(llama_cpp.server; the local backend), or the schema in the prompt",
    )
    reasoning: bool | None = Field(
        default=None, description="a reasoning model (o-series, gpt-5); default guessed from name"
    )
    reasoning_effort: ReasoningEffort | None = None
    chat_format: str | None = Field(
        default=None, description="llama.cpp chat format for GGUF files without a template"
    )
    n_ctx: int = Field(default=4096, ge=256)
    n_threads: int | None = Field(
        default=None,
        ge=1,
        description="llama.cpp threads; default every core (lower it when processes share cores)",
    )

    @property
    def parsed(self) -> ParsedSpec:
        return parse_spec(self.spec)

    @property
    def local(self) -> bool:
        """Runs in this process: one call at a time unless told otherwise."""
        return BACKENDS[self.parsed.backend].local


def parse_spec(spec: str) -> ParsedSpec:
    """Split a spec into backend, model and endpoint, or say what a valid spec looks like."""
    backend, sep, rest = spec.partition(":")
    if not sep or not rest:
        raise ModelSpecError(
            f"model spec {spec!r} has no backend; write e.g. local:qwen2.5-0.5b, openai:gpt-4.1 "
            "or openai-compat:http://127.0.0.1:8000/v1#my-model"
        )
    if backend not in BACKENDS:
        raise ModelSpecError(
            f"model spec {spec!r}: unknown backend {backend!r} (known: {', '.join(BACKENDS)})"
        )
    if not BACKENDS[backend].endpoint_in_spec:
        return ParsedSpec(backend=backend, model=rest)
    base_url, hash_sign, model = rest.partition("#")
    if not hash_sign or not model or not base_url.startswith(("http://", "https://")):
        raise ModelSpecError(
            f"model spec {spec!r}: write {backend}:<http(s) base URL>#<model name>, "
            f"e.g. {backend}:http://127.0.0.1:8000/v1#my-model"
        )
    return ParsedSpec(backend=backend, model=model, base_url=base_url)
