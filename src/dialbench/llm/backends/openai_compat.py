"""OpenAI and every OpenAI-compatible server (vLLM, SGLang, Ollama, llama.cpp server, gateways).

Requests and replies are `openai_format`'s; the transport is `JsonHttpClient` (why not the
`openai` SDK: see there). The runner retries, so every attempt is counted and paced.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

from dialbench.errors import DialbenchError
from dialbench.llm.base import (
    BatchEndpoint,
    Completion,
    ModelAPI,
    ModelError,
    ParsedSpec,
    Request,
    StructuredMode,
)
from dialbench.llm.http_client import JsonHttpClient
from dialbench.llm.openai_format import RequestStyle, completion_from_response, request_arguments
from dialbench.llm.specs import ModelConfig, ModelSpecError, check_url, without_credentials

OPENAI_BASE_URL = "https://api.openai.com/v1"
# Sent to OpenAI when set, as its SDK does.
OPENAI_ACCOUNT_HEADERS = {
    "OPENAI_ORG_ID": "OpenAI-Organization",
    "OPENAI_PROJECT_ID": "OpenAI-Project",
}


# How to ask for JSON, in the order tried when the config does not say: the schema as the
# server's constraint, a JSON object with the schema as a grammar (llama_cpp.server), and last
# no constraint (the output validated and re-asked as always). The mode a judge's answers were
# asked in is in its judgments' provenance.
STRUCTURED_MODES: tuple[StructuredMode, ...] = ("json_schema", "json_object", "prompt")


def refuses_response_format(error: ModelError) -> bool:
    """The server's answer to a `response_format` it does not take; llama_cpp.server says
    "Input should be 'text' or 'json_object'" with an HTTP 500."""
    said = str(error).lower()
    return said.startswith("http ") and any(
        word in said for word in ("response_format", "json_schema", "json_object")
    )


class MissingAPIKeyError(DialbenchError):
    """The environment variable that should hold an API key is not set."""


def read_api_key(variable: str) -> str:
    """The key in `variable`; the key itself is never logged, stored or put in a spec."""
    key = os.environ.get(variable)
    if not key:
        raise MissingAPIKeyError(f"environment variable {variable} (the API key) is not set")
    return key


class OpenAICompatAPI(ModelAPI):
    """One model on one OpenAI-compatible endpoint: `openai-compat:URL#model`. It takes provider
    batches (OpenAI's Batch API, where the server has one)."""

    takes_tools = True
    endpoint_in_spec: ClassVar[bool] = True  # its spec is backend:URL#model
    falls_back: ClassVar[bool] = True  # OpenAI itself takes json_schema; its 400s mean the schema
    key_env: ClassVar[str | None] = None  # where the key is when the config names no variable
    account_headers: ClassVar[Mapping[str, str]] = {}  # environment variable -> header, if set

    def __init__(self, config: ModelConfig) -> None:
        self.config = config
        self.model = config.parsed.model
        base_url = config.endpoint_url or OPENAI_BASE_URL
        key_env = config.api_key_env or self.key_env
        headers: dict[str, str] = {}
        if key_env:
            headers["Authorization"] = f"Bearer {read_api_key(key_env)}"
        headers |= {h: v for env, h in self.account_headers.items() if (v := os.environ.get(env))}
        self.http = JsonHttpClient(base_url, headers, config.timeout_s)
        self.secrets = self.http.secrets
        self.style = RequestStyle.of(config, self.model)
        self.structured_mode: StructuredMode = self.style.structured_mode
        self.mode_fixed = config.structured_output is not None or not self.falls_back
        self.endpoint = without_credentials(base_url)
        self.spec = (
            f"openai-compat:{self.endpoint}#{self.model}" if self.endpoint_in_spec else config.spec
        )

    @classmethod
    def parse_spec(cls, backend: str, rest: str, shown: str) -> ParsedSpec:
        """`URL#model`, the URL checked now rather than by the HTTP client mid-run."""
        if not cls.endpoint_in_spec:
            return super().parse_spec(backend, rest, shown)
        base_url, hash_sign, model = rest.partition("#")
        if not hash_sign or not model or not base_url.startswith(("http://", "https://")):
            raise ModelSpecError(
                f"model spec {shown!r}: write {backend}:<http(s) base URL>#<model name>, "
                f"e.g. {backend}:http://127.0.0.1:8000/v1#my-model"
            )
        check_url(base_url, shown)
        return ParsedSpec(backend=backend, model=model, base_url=base_url)

    async def aclose(self) -> None:
        await self.http.aclose()

    def batch_target(self) -> BatchEndpoint:
        return self

    def check(self) -> None:
        self.http.check()

    def use_structured_mode(self, mode: StructuredMode) -> None:
        self.style = replace(self.style, structured_mode=mode)
        self.structured_mode = mode

    def request_body(self, request: Request) -> tuple[str, dict[str, Any]]:
        """The path under the base URL and the JSON body: for a call, or a batch's line."""
        arguments = request_arguments(request, self.style)
        if request.kind == "chat":
            messages = [m.model_dump() for m in request.messages]
            return "/chat/completions", arguments | {"model": self.model, "messages": messages}
        return "/completions", arguments | {"model": self.model, "prompt": request.prompt}

    def _fallback(
        self, request: Request, sent: StructuredMode, error: ModelError
    ) -> StructuredMode | None:
        """The mode to ask again in after the server refused `sent`; None when the error is
        no such refusal, or the mode is the config's own choice."""
        if request.json_schema is None or self.mode_fixed or not refuses_response_format(error):
            return None
        if self.structured_mode != sent:  # a call in flight beside this one found it first
            return self.structured_mode
        following = STRUCTURED_MODES[STRUCTURED_MODES.index(sent) + 1 :]
        return following[0] if following else None

    async def generate(self, request: Request) -> Completion:
        """One call; a server that refuses the JSON mode is asked again at once in the next one
        (json_object, then the schema in the prompt), and so is every later call."""
        sent = self.structured_mode
        path, body = self.request_body(request)
        started = time.perf_counter()
        try:
            response = await self.http.post(path, body)
        except ModelError as error:
            fallback = self._fallback(request, sent, error)
            if fallback is None:
                raise
            self.use_structured_mode(fallback)
            return await self.generate(request)
        chat = request.kind == "chat"
        return completion_from_response(response, time.perf_counter() - started, chat=chat)


class OpenAIAPI(OpenAICompatAPI):
    """OpenAI itself: `openai:model`, the key from OPENAI_API_KEY."""

    endpoint_in_spec: ClassVar[bool] = False
    falls_back: ClassVar[bool] = False
    key_env: ClassVar[str | None] = "OPENAI_API_KEY"
    account_headers: ClassVar[Mapping[str, str]] = OPENAI_ACCOUNT_HEADERS
