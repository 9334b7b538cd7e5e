"""OpenAI and every OpenAI-compatible server (vLLM, SGLang, Ollama, llama.cpp server, gateways).

Uses the official SDK with its aiohttp transport: on this 2-core machine the default httpx
transport reached 0.26 of ideal throughput at 64 concurrent calls, aiohttp 0.86 (DESIGN.md).
The SDK's own retries are off; the runner retries, so that every attempt is counted and paced.
"""

from __future__ import annotations

import asyncio
import email.utils
import os
import time
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import openai
from openai import AsyncOpenAI, DefaultAioHttpClient

from dialbench.errors import DialbenchError
from dialbench.llm.base import Completion, ModelError, Request, StructuredMode
from dialbench.llm.openai_format import (
    completion_from_response,
    is_reasoning_model,
    request_arguments,
)
from dialbench.llm.specs import ModelConfig

OPENAI_BASE_URL = "https://api.openai.com/v1"
RETRYABLE_STATUS = frozenset({408, 409, 429}) | frozenset(range(500, 600))


class MissingAPIKeyError(DialbenchError):
    """The environment variable that should hold an API key is not set."""


def without_credentials(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit(parts._replace(netloc=netloc))


def read_api_key(variable: str) -> str:
    """The key in `variable`; the key itself is never logged, stored or put in a spec."""
    key = os.environ.get(variable)
    if not key:
        raise MissingAPIKeyError(f"environment variable {variable} (the API key) is not set")
    return key


def retry_after_seconds(headers: Any) -> float | None:
    """Seconds to wait from `retry-after-ms` / `Retry-After` (seconds or an HTTP date)."""
    if value := headers.get("retry-after-ms"):
        try:
            return float(value) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def model_error(error: openai.APIError) -> ModelError:
    if isinstance(error, openai.APIStatusError):
        return ModelError(
            f"HTTP {error.status_code}: {error.message}",
            retryable=error.status_code in RETRYABLE_STATUS,
            retry_after_s=retry_after_seconds(error.response.headers),
        )
    # Connection errors, timeouts, and bodies that are not the JSON the API promises.
    return ModelError(f"{type(error).__name__}: {error.message}", retryable=True)


class OpenAICompatAPI:
    """One model on one OpenAI-compatible endpoint."""

    def __init__(self, config: ModelConfig) -> None:
        parsed = config.parsed
        self.config = config
        self.model = parsed.model
        self.base_url = parsed.base_url or OPENAI_BASE_URL
        key_env = config.api_key_env or ("OPENAI_API_KEY" if parsed.backend == "openai" else None)
        self._api_key = read_api_key(key_env) if key_env else "no-key"
        # json_schema is what OpenAI, vLLM, SGLang, Ollama and llama.cpp's C++ server take;
        # llama_cpp.server (Python) needs structured_output="json_object".
        self.structured_mode: StructuredMode = config.structured_output or "json_schema"
        self.reasoning = (
            config.reasoning if config.reasoning is not None else is_reasoning_model(self.model)
        )
        self._clients: dict[asyncio.AbstractEventLoop, AsyncOpenAI] = {}
        self.endpoint = without_credentials(self.base_url)
        self.spec = (
            config.spec
            if parsed.backend == "openai"
            else f"openai-compat:{self.endpoint}#{self.model}"
        )

    def _client(self) -> AsyncOpenAI:
        """One client per event loop: an aiohttp session cannot move between loops."""
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            client = AsyncOpenAI(
                api_key=self._api_key,
                base_url=self.base_url,
                max_retries=0,
                timeout=self.config.timeout_s,
                http_client=DefaultAioHttpClient(),
            )
            self._clients[loop] = client
        return client

    async def aclose(self) -> None:
        client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.close()

    async def generate(self, request: Request) -> Completion:
        started = time.perf_counter()
        try:
            if request.kind == "chat":
                completion = await self._chat(request)
            else:
                completion = await self._complete(request)
        except openai.APIError as error:
            raise model_error(error) from error
        except ValueError as error:  # a 200 response whose body is not valid JSON
            raise ModelError(f"malformed response body: {error}", retryable=True) from error
        return completion.model_copy(update={"latency_s": time.perf_counter() - started})

    async def _chat(self, request: Request) -> Completion:
        body = self._arguments(request) | {
            "model": self.model,
            "messages": [m.model_dump() for m in request.messages],
        }
        return await self._post("/chat/completions", body, chat=True)

    async def _complete(self, request: Request) -> Completion:
        body = self._arguments(request) | {"model": self.model, "prompt": request.prompt}
        return await self._post("/completions", body, chat=False)

    def _arguments(self, request: Request) -> dict[str, Any]:
        return request_arguments(
            request,
            reasoning=self.reasoning,
            reasoning_effort=self.config.reasoning_effort,
            structured_mode=self.structured_mode,
        )

    async def _post(self, path: str, body: dict[str, Any], *, chat: bool) -> Completion:
        """POST a plain JSON body through the SDK (auth, transport, errors) and read the reply.

        The typed `create()` methods spend about 2 ms per call transforming parameters, which
        caps a 2-core machine far below the concurrency an endpoint allows; `post` does not.
        """
        response = await self._client().post(path, body=body, cast_to=object)
        return completion_from_response(response, 0.0, chat=chat)
