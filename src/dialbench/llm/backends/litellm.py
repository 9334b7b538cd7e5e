"""Models reached through LiteLLM (Anthropic, Gemini, Bedrock, ...): an optional extra.

LiteLLM speaks the OpenAI format and raises the `openai` SDK's exception types (the SDK comes
with LiteLLM), so requests, responses and retry decisions are those of the OpenAI-compatible
backend. Its own retries are off; `drop_params` lets it drop what a provider does not take.
Its price table is the one it ships (`LITELLM_LOCAL_MODEL_COST_MAP`, unless set otherwise): on
import it would fetch one from GitHub, warning three times wherever that is unreachable, and
dialbench prices calls from its own table anyway.

Its HTTP clients are its own (the `openai` SDK's, its httpx handler), and they follow redirects to
other origins, dropping only `Authorization`: a key in another header (Anthropic's `x-api-key`,
Azure's `api-key`) would go along. So every httpx client LiteLLM builds is given a response
hook that holds its redirects to dialbench's same-origin rule (`http_client.redirect_target`);
errors are redacted by the runner all the same.
"""

from __future__ import annotations

import functools
import inspect
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field, field_serializer
from yarl import URL

from dialbench.llm.backends.openai_compat import read_api_key
from dialbench.llm.base import (
    BackendSettings,
    Completion,
    ModelAPI,
    ModelError,
    Request,
    StructuredMode,
)
from dialbench.llm.http_client import RETRYABLE_STATUS, redirect_target, retry_after_seconds
from dialbench.llm.openai_format import RequestStyle, completion_from_response, request_arguments
from dialbench.llm.redaction import url_secrets
from dialbench.llm.specs import ModelConfig, without_credentials
from dialbench.registry import Requirement

if TYPE_CHECKING:
    import httpx
    import openai

# Read when litellm is imported: set as this backend loads, before anything imports litellm.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def refuse_another_origin(response: httpx.Response) -> None:
    """An httpx response hook: a `ModelError` for a redirect to another origin, raised before the
    client follows it, whether the redirect would have been followed or not."""
    if response.has_redirect_location:
        redirect_target(URL(str(response.request.url)), response.headers["Location"])


async def refuse_another_origin_async(response: httpx.Response) -> None:
    refuse_another_origin(response)


def _hook_clients_of(owner: type, factory: str, hook: Callable[[httpx.Response], Any]) -> None:
    """Make `owner.factory`, which builds httpx clients, put `hook` among a client's response
    hooks, once: a shared client (`litellm.aclient_session`) comes back on every call."""
    build = getattr(owner, factory)

    @functools.wraps(build)
    def build_hooked(*args: Any, **kwargs: Any) -> httpx.Client | httpx.AsyncClient | None:
        client: httpx.Client | httpx.AsyncClient | None = build(*args, **kwargs)
        if client is not None and hook not in client.event_hooks["response"]:
            hooks = client.event_hooks
            client.event_hooks = {**hooks, "response": [*hooks["response"], hook]}
        return client

    static = isinstance(inspect.getattr_static(owner, factory), staticmethod)
    setattr(owner, factory, staticmethod(build_hooked) if static else build_hooked)


@functools.cache
def refuse_redirects_to_other_origins() -> None:
    """Hook every httpx client LiteLLM builds from now on: its handler's (Anthropic, Gemini, ...)
    and the `openai` SDK's (OpenAI-compatible providers, Azure). LiteLLM has no setting that
    reaches them all: `litellm.aclient_session` is the SDK's alone, and one client for the
    process would outlive the event loop each `Runner.run_sync` makes. The few httpx clients it
    builds elsewhere keep httpx's default of following no redirect."""
    from litellm.llms.custom_httpx.http_handler import AsyncHTTPHandler, HTTPHandler
    from litellm.llms.openai.common_utils import BaseOpenAILLM

    for owner, factory, hook in (
        (AsyncHTTPHandler, "create_client", refuse_another_origin_async),
        (HTTPHandler, "create_client", refuse_another_origin),
        (BaseOpenAILLM, "_get_async_http_client", refuse_another_origin_async),
        (BaseOpenAILLM, "_get_sync_http_client", refuse_another_origin),
    ):
        _hook_clients_of(owner, factory, hook)


def _refusal_within(error: BaseException) -> ModelError | None:
    """The `ModelError` a hook raised, which LiteLLM and the SDK wrap in their own errors."""
    seen: set[int] = set()
    cause: BaseException | None = error
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, ModelError):
            return cause
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return None


def model_error(error: openai.APIError) -> ModelError:
    import openai

    if (refusal := _refusal_within(error)) is not None:
        return ModelError(str(refusal))  # a new one: the refusal itself is in `error`'s chain
    if isinstance(error, openai.APIStatusError):
        return ModelError(
            f"HTTP {error.status_code}: {error.message}",
            retryable=error.status_code in RETRYABLE_STATUS,
            retry_after_s=retry_after_seconds(error.response.headers),
        )
    # Connection errors, timeouts, and bodies that are not the JSON the API promises.
    return ModelError(f"{type(error).__name__}: {error.message}", retryable=True)


class LiteLLMSettings(BackendSettings):
    """Where LiteLLM sends a model's calls, when not to the provider's own API."""

    base_url: str | None = Field(
        default=None, description="the API's base URL; dumped without credentials", repr=False
    )

    @field_serializer("base_url")
    def _public_base_url(self, base_url: str | None) -> str | None:
        return None if base_url is None else without_credentials(base_url)


class LiteLLMAPI(ModelAPI):
    Settings: ClassVar[type[BackendSettings]] = LiteLLMSettings
    takes_tools = True
    requires: ClassVar[Requirement | None] = Requirement("litellm", "litellm", minimum="1.70")

    def __init__(self, config: ModelConfig) -> None:
        base_url = config.settings_as(LiteLLMSettings).base_url
        self.model = config.parsed.model
        self.style = RequestStyle.of(config, self.model)
        self.structured_mode: StructuredMode = self.style.structured_mode
        self._connection: dict[str, Any] = {"timeout": config.timeout_s, "num_retries": 0}
        if base_url:
            self._connection["api_base"] = base_url
            self.secrets = url_secrets(base_url)
        if config.api_key_env:
            key = self._connection["api_key"] = read_api_key(config.api_key_env)
            self.secrets |= {key}
        base = without_credentials(base_url) if base_url else None
        self.spec = f"litellm:{self.model}" + (f"@{base}" if base else "")
        self.endpoint = base or self.model.split("/", 1)[0]

    async def generate(self, request: Request) -> Completion:
        import litellm  # the optional extra, imported when a LiteLLM model is called
        import openai

        refuse_redirects_to_other_origins()

        arguments = request_arguments(request, self.style) | self._connection
        arguments |= {"model": self.model, "drop_params": True}
        started = time.perf_counter()
        try:
            if request.kind == "chat":
                # JSON's lists, not tuples: LiteLLM's provider transforms check for lists.
                messages = [m.model_dump(mode="json") for m in request.messages]
                response = await litellm.acompletion(messages=messages, **arguments)
            else:
                response = await litellm.atext_completion(prompt=request.prompt, **arguments)
        except openai.APIError as error:  # LiteLLM's exceptions subclass the SDK's
            raise model_error(error) from error
        latency = time.perf_counter() - started
        return completion_from_response(
            response.model_dump(mode="json"), latency, chat=request.kind == "chat"
        )
