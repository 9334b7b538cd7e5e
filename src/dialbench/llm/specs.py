"""Model specs: the strings users write in configs and on the command line.

    local:qwen2.5-0.5b                       a packaged model (see `dialbench models`)
    local:/path/to/any.gguf                  any GGUF file
    openai:gpt-4.1                           OpenAI, key from OPENAI_API_KEY
    openai-compat:http://host:8000/v1#name   any OpenAI-compatible server (vLLM, Ollama, ...)
    pool:http://a:8000/v1,http://b:8000/v1#name
                                             replicas of one model behind OpenAI-compatible
                                             servers; or `pool:name` with `endpoints: [...]`
    litellm:anthropic/claude-sonnet-4        through LiteLLM (pip install 'dialbench[litellm]')
    hf:facebook/nllb-200-distilled-600M      a Hugging Face seq2seq (MT) model, in this process
                                             (pip install 'dialbench[finetune]')
    scripted:NAME                            answers from a function registered in-process (tests)
    python:MODULE:FUNCTION                   a chatbot of your own: a Python function, sync or
                                             async, MODULE imported from the current directory
    http:NAME                                a chatbot of your own behind its HTTP API, declared
                                             by the model's `http` settings (`llm/http_bot.py`)

Everything else about a model (key variable, limits, timeouts) is a `ModelConfig` field, so the
spec stays short. A spec written with a secret anyway (`http://user:password@host/v1`, or
`?api_key=...`) is still called with it, but every record, report and export sees the spec
without it: `ModelConfig.spec` is the public spec, the secret stays in a private attribute.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from pydantic import (
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    field_serializer,
    model_serializer,
    model_validator,
)

from dialbench.errors import DialbenchError
from dialbench.llm.base import ModelAPI, ReasoningEffort, StructuredMode
from dialbench.llm.http_bot import HttpBotSettings
from dialbench.registry import Registry
from dialbench.schema import Record

DEFAULT_LOCAL_MODEL = "local:qwen2.5-0.5b"
POOL = "pool"
PYTHON, HTTP = "python", "http"

# A spec's prefix names its backend: the class serving it, one module each in `llm/backends/`.
# A plugin adds one under the entry-point group `dialbench.backends`.
BACKENDS: Registry[type[ModelAPI]] = Registry(
    "backend",
    {
        "local": "dialbench.llm.backends.local:LocalAPI",
        "openai": "dialbench.llm.backends.openai_compat:OpenAIAPI",
        "openai-compat": "dialbench.llm.backends.openai_compat:OpenAICompatAPI",
        "pool": "dialbench.llm.backends.pool:PoolAPI",
        "litellm": "dialbench.llm.backends.litellm:LiteLLMAPI",
        "scripted": "dialbench.llm.backends.scripted:ScriptedAPI",
        "hf": "dialbench.llm.backends.hf:HFAPI",
        PYTHON: "dialbench.llm.backends.python:PythonAPI",
        HTTP: "dialbench.llm.backends.http:HttpBotAPI",
    },
    group="backends",
)


# `user:password@` after a scheme, and query parameters that name a secret (api_key, token, ...).
_USERINFO = re.compile(r"(?<=://)[^/?#@]*@")
_PYTHON_PATH = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")
_SECRET_PARAMETER = re.compile(
    r"(?<=[?&])[^=&#]*(?:key|token|secret|password|passwd|auth|signature|sig)[^=&#]*=[^&#]*&?",
    re.IGNORECASE,
)


class ModelSpecError(DialbenchError):
    """A model spec string that dialbench cannot read."""


def without_credentials(text: str) -> str:
    """A spec or URL without userinfo and secret-looking query parameters, safe to record.

    Textual, so it also cleans a malformed URL before it is quoted in an error message.
    """
    cleaned = _SECRET_PARAMETER.sub("", _USERINFO.sub("", text))
    return re.sub(r"[?&](?=#|$)", "", cleaned)


DEFAULT_HTTP_CONCURRENCY = 32


class ParsedSpec(Record):
    model_config = ConfigDict(extra="forbid", frozen=True)

    backend: str
    model: str
    base_url: str | None = None
    endpoints: tuple[str, ...] = ()


class ModelConfig(Record):
    """How to reach and pace one model. Only `spec` is required."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    spec: str = Field(description="the public spec: never holds the credentials it was given")
    base_url: str | None = Field(
        default=None,
        description="API base URL for litellm models (openai-compat puts it in the spec); "
        "dumped without credentials",
        repr=False,
    )
    endpoints: tuple[str, ...] = Field(
        default=(),
        description="base URLs of a pool's replicas (spec pool:<model>); dumped without "
        "credentials",
        repr=False,
    )
    api_key_env: str | None = Field(
        default=None, description="name of the environment variable holding the API key"
    )
    max_concurrency: int | None = Field(
        default=None,
        ge=1,
        description="calls in flight per endpoint (a pool's: per replica); default 1 local, "
        "32 HTTP",
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

    http: HttpBotSettings | None = Field(
        default=None, description="an http: chatbot's URL, headers, body template and reply path"
    )
    stateful: bool = Field(
        default=False,
        description="a chatbot of your own (python:, http:) that keeps its own history: it is "
        "sent the new user message and a session per dialogue",
    )

    _spec_with_credentials: str | None = PrivateAttr(default=None)

    @model_validator(mode="wrap")
    @classmethod
    def _keep_credentials_out_of_spec(
        cls, data: Any, handler: ModelWrapValidatorHandler[ModelConfig]
    ) -> ModelConfig:
        given = data.get("spec") if isinstance(data, dict) else None
        if not isinstance(given, str) or without_credentials(given) == given:
            return handler(data)
        config = handler({**data, "spec": without_credentials(given)})
        config._spec_with_credentials = given
        return config

    @model_validator(mode="after")
    def _endpoints_only_in_pools(self) -> ModelConfig:
        """A pool's replicas are named once and are http(s) URLs: checked where they are read
        (a YAML line, a --judge option), not mid-run."""
        if self.endpoints and not self.spec.startswith(f"{POOL}:"):
            raise ValueError("endpoints are a pool's replicas: write the spec as pool:<model>")
        if not self.spec.startswith(f"{POOL}:"):
            return self
        try:
            in_spec = parse_spec(self.spec).endpoints
            for url in self.endpoints:
                _check_url(url, self.spec)
        except ModelSpecError as error:
            raise ValueError(str(error)) from None
        if bool(in_spec) == bool(self.endpoints):
            raise ValueError(
                f"model spec {self.spec!r}: name the replicas once, either in the spec "
                "(pool:http://a:8000/v1,http://b:8000/v1#model) or as endpoints with spec "
                "pool:model"
            )
        return self

    @model_validator(mode="after")
    def _bot_settings_only_for_bots(self) -> ModelConfig:
        backend = self.spec.partition(":")[0]
        if (backend == HTTP) != (self.http is not None):
            raise ValueError(
                "an http: chatbot is declared with its http settings (url, body, reply_path), "
                "and only an http: chatbot has them"
            )
        if self.stateful and backend not in (HTTP, PYTHON):
            raise ValueError("stateful is for chatbots of your own: python: or http: specs")
        return self

    @model_serializer(mode="wrap")
    def _bot_settings_only_when_set(self, handler: SerializerFunctionWrapHandler) -> Any:
        """A model dumps as before bots existed, so the identities made from dumps then (a
        pipeline stage's, a config's hash) still match."""
        dumped = handler(self)
        if isinstance(dumped, dict):
            if dumped.get("http") is None:
                dumped.pop("http", None)
            elif self.http is not None:
                dumped["http"]["url"] = without_credentials(self.http.url)
            if not dumped.get("stateful"):
                dumped.pop("stateful", None)
        return dumped

    @field_serializer("base_url")
    def _public_base_url(self, base_url: str | None) -> str | None:
        return None if base_url is None else without_credentials(base_url)

    @field_serializer("endpoints")
    def _public_endpoints(self, endpoints: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(without_credentials(url) for url in endpoints)

    @property
    def parsed(self) -> ParsedSpec:
        return parse_spec(self.spec)

    @property
    def local(self) -> bool:
        """Runs in this process: one call at a time unless told otherwise."""
        return BACKENDS.load(self.parsed.backend).in_process

    @property
    def concurrency(self) -> int:
        """Calls in flight at once: the configured limit, else one in process, 32 over HTTP; a
        pool's limit holds per replica, so the pool takes it times its replicas."""
        per_endpoint = self.max_concurrency or (1 if self.local else DEFAULT_HTTP_CONCURRENCY)
        return per_endpoint * max(1, len(self.pool_urls))

    @property
    def endpoint_url(self) -> str | None:
        """The base URL to call: the spec's, with any credentials the spec was written with."""
        return parse_spec(self._spec_with_credentials or self.spec).base_url

    @property
    def pool_urls(self) -> tuple[str, ...]:
        """A pool's replica URLs to call, with their credentials; () for any other model."""
        return self.endpoints or parse_spec(self._spec_with_credentials or self.spec).endpoints


def as_model_config(value: Any) -> Any:
    """A bare spec string in a config file as a model entry: `local:x` -> `{spec: local:x}`."""
    return {"spec": value} if isinstance(value, str) else value


def readable_model(model: ModelConfig) -> ModelConfig:
    """A config validator's check that the spec parses (as written, credentials included), so
    a typo is reported at its line, not mid-run."""
    try:
        model.endpoint_url  # noqa: B018  (parses the spec)
    except ModelSpecError as error:
        raise ValueError(str(error)) from None
    return model


def as_model_configs(value: Any) -> Any:
    """A config file's list of models, each a spec string or a mapping, as model entries."""
    return [as_model_config(m) for m in value] if isinstance(value, list) else value


def parse_spec(spec: str) -> ParsedSpec:
    """Split a spec into backend, model and endpoint, or say what a valid spec looks like."""
    backend, sep, rest = spec.partition(":")
    shown = without_credentials(spec)
    if not sep or not rest:
        raise ModelSpecError(
            f"model spec {shown!r} has no backend; write e.g. local:qwen2.5-0.5b, openai:gpt-4.1 "
            "or openai-compat:http://127.0.0.1:8000/v1#my-model"
        )
    if backend not in BACKENDS:
        raise ModelSpecError(
            f"model spec {shown!r}: unknown backend {backend!r} (known: {', '.join(BACKENDS)})"
        )
    if backend == POOL:
        return _parse_pool(rest, shown)
    if backend == PYTHON and not _PYTHON_PATH.fullmatch(rest):
        raise ModelSpecError(
            f"model spec {shown!r}: write python:<module>:<function>, e.g. python:mybot:reply"
        )
    if not BACKENDS.load(backend).endpoint_in_spec:
        return ParsedSpec(backend=backend, model=rest)
    base_url, hash_sign, model = rest.partition("#")
    if not hash_sign or not model or not base_url.startswith(("http://", "https://")):
        raise ModelSpecError(
            f"model spec {shown!r}: write {backend}:<http(s) base URL>#<model name>, "
            f"e.g. {backend}:http://127.0.0.1:8000/v1#my-model"
        )
    _check_url(base_url, shown)
    return ParsedSpec(backend=backend, model=model, base_url=base_url)


def _parse_pool(rest: str, shown: str) -> ParsedSpec:
    """`pool:<model>` (replicas in `endpoints`) or `pool:<url>,<url>,...#<model>`."""
    urls, hash_sign, model = rest.rpartition("#")
    if not hash_sign:
        return ParsedSpec(backend=POOL, model=rest)
    endpoints = tuple(url.strip() for url in urls.split(","))
    if not model or not all(endpoints):
        raise ModelSpecError(
            f"model spec {shown!r}: write pool:<base URL>,<base URL>,...#<model name>, "
            "e.g. pool:http://10.0.0.1:8000/v1,http://10.0.0.2:8000/v1#my-model"
        )
    for url in endpoints:
        _check_url(url, shown)
    return ParsedSpec(backend=POOL, model=model, endpoints=endpoints)


def _check_url(url: str, shown: str) -> None:
    """Reject at parse time what the HTTP client would only reject mid-run."""
    if not url.startswith(("http://", "https://")):
        raise ModelSpecError(
            f"model spec {shown!r}: {without_credentials(url)!r} is no http(s) URL"
        )
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:  # a port out of range, an unclosed [IPv6] bracket, ...
        raise ModelSpecError(f"model spec {shown!r}: not a valid URL ({error})") from None
    if not parts.hostname:
        raise ModelSpecError(f"model spec {shown!r}: the URL names no host")
    if port == 0:
        raise ModelSpecError(f"model spec {shown!r}: port 0 cannot be called")
