"""Models reached through LiteLLM (Anthropic, Gemini, Bedrock, ...): an optional extra.

LiteLLM speaks the OpenAI format and raises the `openai` SDK's exception types (the SDK comes
with LiteLLM), so requests, responses and retry decisions are those of the OpenAI-compatible
backend. Its own retries are off; `drop_params` lets it drop what a provider does not take.
Its price table is the one it ships (`LITELLM_LOCAL_MODEL_COST_MAP`, unless set otherwise): on
import it would fetch one from GitHub, warning three times wherever that is unreachable, and
dialbench prices calls from its own table anyway.

Its HTTP clients are its own (the `openai` SDK's, its httpx handler): they follow redirects to
other origins too, dropping only `Authorization`, and dialbench's same-origin rule
(`http_client.py`) cannot reach into them; errors are redacted by the runner all the same.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field, field_serializer

from dialbench.llm.backends.openai_compat import read_api_key
from dialbench.llm.base import (
    BackendSettings,
    Completion,
    ModelAPI,
    ModelError,
    Request,
    StructuredMode,
)
from dialbench.llm.http_client import RETRYABLE_STATUS, retry_after_seconds
from dialbench.llm.openai_format import RequestStyle, completion_from_response, request_arguments
from dialbench.llm.redaction import url_secrets
from dialbench.llm.specs import ModelConfig, without_credentials
from dialbench.registry import Requirement

if TYPE_CHECKING:
    import openai

# Read when litellm is imported: set as this backend loads, before anything imports litellm.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def model_error(error: openai.APIError) -> ModelError:
    import openai

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

        arguments = request_arguments(request, self.style) | self._connection
        arguments |= {"model": self.model, "drop_params": True}
        started = time.perf_counter()
        try:
            if request.kind == "chat":
                messages = [m.model_dump() for m in request.messages]
                response = await litellm.acompletion(messages=messages, **arguments)
            else:
                response = await litellm.atext_completion(prompt=request.prompt, **arguments)
        except openai.APIError as error:  # LiteLLM's exceptions subclass the SDK's
            raise model_error(error) from error
        latency = time.perf_counter() - started
        return completion_from_response(
            response.model_dump(mode="json"), latency, chat=request.kind == "chat"
        )
