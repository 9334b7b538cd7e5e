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

Everything else about a model is a `ModelConfig` field, so the spec stays short: what every
backend takes (key variable, limits, timeouts) is the config's own, and what only one backend
takes (a local model's `n_ctx`, a pool's `endpoints`) is that backend's `Settings`, written beside
the spec all the same. A spec written with a secret anyway (`http://user:password@host/v1`, or
`?api_key=...`) is still called with it, but every record, report and export sees the spec
without it: `ModelConfig.spec` is the public spec, the secret stays in a private attribute.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar
from urllib.parse import urlsplit

from pydantic import (
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    PrivateAttr,
    SerializationInfo,
    SerializeAsAny,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from dialbench.errors import DialbenchError
from dialbench.llm.base import (
    BackendSettings,
    ModelAPI,
    ParsedSpec,
    ReasoningEffort,
    StructuredMode,
)
from dialbench.llm.redaction import CREDENTIAL_WORDS
from dialbench.llm.reply_text import MAX_REPLY_BYTES
from dialbench.registry import Registry
from dialbench.schema import Record

DEFAULT_LOCAL_MODEL = "local:qwen2.5-0.5b"

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
        "python": "dialbench.llm.backends.python:PythonAPI",
        "http": "dialbench.llm.backends.http:HttpBotAPI",
    },
    group="backends",
    base=ModelAPI,
)
S = TypeVar("S", bound=BackendSettings)


# `user:password@` after a scheme, and query parameters that name a secret (api_key, token, ...).
_USERINFO = re.compile(r"(?<=://)[^/?#@]*@")
_SECRET_PARAMETER = re.compile(
    rf"(?<=[?&])[^=&#]*(?:{CREDENTIAL_WORDS})[^=&#]*=[^&#]*&?", re.IGNORECASE
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
# Calls of an in-process model waiting at once: they run one at a time all the same, on the one
# generation thread (`backends/generation_queue.py`), which takes a stage's waiting calls in turn
# and keeps its prompt cache warm; with one call waiting per stage, stages side by side switched
# prompts on every call.
LOCAL_CONCURRENCY = 4


class _FormerFields(Record):
    """The settings that were fields of every model before each backend declared its own, with
    their defaults then: every model still dumps them (`ModelConfig._dumped_as_before`)."""

    base_url: str | None = None
    endpoints: tuple[str, ...] = ()
    chat_format: str | None = None
    n_ctx: int = 4096
    n_threads: int | None = None


_FORMER_FIELDS = _FormerFields()
_FORMER_FIRST = ("base_url", "endpoints")  # dumped right after `spec`; the others last


class ModelConfig(Record):
    """How to reach and pace one model. Only `spec` is required; every other key written beside
    it that is not a field here is a setting of the spec's backend (`settings`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    spec: str = Field(description="the public spec: never holds the credentials it was given")
    api_key_env: str | None = Field(
        default=None, description="name of the environment variable holding the API key"
    )
    max_concurrency: int | None = Field(
        default=None,
        ge=1,
        description="calls in flight per endpoint (a pool's: per replica); default 4 in "
        "process (waiting their turn on one thread), 32 HTTP",
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
    max_reply_bytes: int = Field(
        default=MAX_REPLY_BYTES,
        ge=1,
        description="a longer reply is cut to this many bytes of UTF-8, its turn flagged "
        "(truncated_from_bytes)",
    )
    settings: SerializeAsAny[BackendSettings] = Field(
        default_factory=BackendSettings,
        description="the backend's own settings, its `Settings` record: written flat beside "
        "`spec`, never under this key",
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

    @model_validator(mode="before")
    @classmethod
    def _settings_beside_spec(cls, data: Any) -> Any:
        """The keys that are no field of every model's are the backend's settings, validated by
        its `Settings` where they are written: a problem is reported at its own key."""
        if not isinstance(data, dict):
            return data
        shared = {key for key in cls.model_fields if key != "settings"}
        own = {key: value for key, value in data.items() if key not in shared}
        settings = _backend_settings(data.get("spec"), own)
        return {key: value for key, value in data.items() if key in shared} | {"settings": settings}

    @model_serializer(mode="wrap")
    def _dumped_as_before(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> Any:
        """The backend's settings dumped flat beside the others, as they are written. The five
        that were every model's fields before each backend declared its settings are dumped
        for every model, at their places then and with their defaults then, and any other
        setting, like `max_reply_bytes`, only away from its default: a model dumps as before,
        so the identities made from dumps (a pipeline stage's, a config's hash, a judgment's)
        still match."""
        dumped = handler(self)
        if not isinstance(dumped, dict):
            return dumped
        if dumped.get("max_reply_bytes") == MAX_REPLY_BYTES:
            del dumped["max_reply_bytes"]
        own: dict[str, Any] = dumped.pop("settings", {})
        former: dict[str, Any] = _FORMER_FIELDS.model_dump(
            mode=info.mode,
            exclude_unset=info.exclude_unset,
            exclude_defaults=info.exclude_defaults,
            exclude_none=info.exclude_none,
        )
        former |= {key: own.pop(key) for key in list(own) if key in _FormerFields.model_fields}
        fields = type(self.settings).model_fields
        later = {
            key: value
            for key, value in own.items()
            if fields[key].is_required()
            or getattr(self.settings, key) != fields[key].get_default(call_default_factory=True)
        }
        head = {key: dumped.pop(key) for key in ("spec",) if key in dumped}
        first = {key: former.pop(key) for key in _FORMER_FIRST if key in former}
        return head | first | dumped | former | later

    def settings_as(self, kind: type[S]) -> S:
        """The backend's settings as the record it declared (`kind`): how a backend reads them."""
        if not isinstance(self.settings, kind):
            raise DialbenchError(f"model spec {self.spec!r}: its settings are no {kind.__name__}")
        return self.settings

    @property
    def parsed(self) -> ParsedSpec:
        return parse_spec(self.spec)

    @property
    def local(self) -> bool:
        """Runs in this process, one call at a time on the generation thread."""
        return BACKENDS.load(self.parsed.backend).in_process

    @property
    def concurrency(self) -> int:
        """Calls in flight at once: the configured limit, else 4 in process (run one at a time),
        32 over HTTP; a pool's limit holds per replica, so the pool takes it times its
        replicas."""
        per_endpoint = self.max_concurrency or (
            LOCAL_CONCURRENCY if self.local else DEFAULT_HTTP_CONCURRENCY
        )
        return per_endpoint * max(1, len(self.replica_urls))

    @property
    def endpoint_url(self) -> str | None:
        """The base URL to call: the spec's, with any credentials the spec was written with."""
        return parse_spec(self._spec_with_credentials or self.spec).base_url

    @property
    def replica_urls(self) -> tuple[str, ...]:
        """The URLs its calls spread over, each paced on its own (a pool's replicas), with their
        credentials; () for a model behind one endpoint."""
        return self.settings.replicas(self._spec_with_credentials or self.spec)


def _backend_settings(spec: Any, given: dict[str, Any]) -> BackendSettings:
    """`given` as the settings of `spec`'s backend. A key the backend does not take, or a
    setting it needs that is missing, is an error at that key naming the backend (and the
    backends that do take the key); a value it refuses, the record's own error at that key.
    A former field at its default then is what every dump holds (`_dumped_as_before`): every
    backend reads it back, and a backend without it drops it."""
    backend = spec.partition(":")[0] if isinstance(spec, str) else ""
    kind = BACKENDS.load(backend).Settings if backend in BACKENDS else BackendSettings
    given = {
        key: value
        for key, value in given.items()
        if key in kind.model_fields or not _at_former_default(key, value)
    }
    if backend not in BACKENDS:  # no spec, or one whose error is reported where it is read
        if given and isinstance(spec, str):
            try:
                parse_spec(spec)
            except ModelSpecError as error:
                raise ValueError(str(error)) from None
        return BackendSettings()
    fields = kind.model_fields
    takes = ", ".join(fields) or "none"
    problems = [
        _problem(
            key,
            value,
            f"{key!r} is not a setting of {backend}: models (they take {takes})" + _taken_by(key),
        )
        for key, value in given.items()
        if key not in fields
    ]
    problems += [
        _problem(
            name,
            None,
            f"{backend}: models need the setting {name!r}"
            + (f" ({field.description})" if field.description else ""),
        )
        for name, field in fields.items()
        if field.is_required() and name not in given
    ]
    if problems:
        raise ValidationError.from_exception_data("settings", problems)
    return kind.model_validate(given, context={"spec": without_credentials(spec)})


def _at_former_default(key: str, value: Any) -> bool:
    """`value` is what `key` held by default when it was a field of every model."""
    if key not in _FormerFields.model_fields:
        return False
    try:
        read = _FormerFields.model_validate({key: value})
    except ValidationError:
        return False
    return bool(getattr(read, key) == getattr(_FORMER_FIELDS, key))


def _taken_by(key: str) -> str:
    """Which backends take a setting, for a message about one written for another backend."""
    takers = []
    for name in BACKENDS:
        try:
            if key in BACKENDS.load(name).Settings.model_fields:
                takers.append(f"{name}:")
        except DialbenchError:  # a plugin that cannot be loaded takes nothing here
            continue
    return f"; {', '.join(takers)} models take {key!r}" if takers else ""


def _problem(key: str, value: Any, message: str) -> InitErrorDetails:
    return InitErrorDetails(
        type=PydanticCustomError("backend_setting", "{message}", {"message": message}),
        loc=(key,),
        input=value,
    )


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
    """Split a spec into backend, model and endpoint, or say what a valid spec looks like; what
    follows `backend:` is the backend's to read (`ModelAPI.parse_spec`)."""
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
    return BACKENDS.load(backend).parse_spec(backend, rest, shown)


def check_url(url: str, shown: str) -> None:
    """Reject at parse time what the HTTP client would only reject mid-run; `shown` says where
    the URL was written (a spec without its credentials)."""
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
