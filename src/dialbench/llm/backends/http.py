"""`http:NAME`: a chatbot behind an HTTP API of its own, declared by the model's `http` setting
(`llm/http_bot.py`). The transport is `JsonHttpClient`, so timeouts, 429 with Retry-After and
5xx are told apart and retried as for `openai-compat:`; a response without the reply where
`reply_path` says is an error that quotes the response's start.
"""

from __future__ import annotations

import time
from typing import ClassVar

import orjson
from pydantic import Field, JsonValue

from dialbench.llm.base import (
    BackendSettings,
    Completion,
    ModelAPI,
    ModelError,
    Request,
    RequestKind,
)
from dialbench.llm.bots import bot_completion, bot_request, stateful_setting
from dialbench.llm.http_bot import HttpService, read_reply, render_body
from dialbench.llm.http_client import JsonHttpClient
from dialbench.llm.specs import ModelConfig, without_credentials

SHOWN_BYTES = 200


class HttpSettings(BackendSettings):
    """An HTTP chatbot's service, and whether it keeps its own history."""

    http: HttpService = Field(
        description="an http: chatbot's URL, headers, body template and reply path"
    )
    stateful: bool = stateful_setting()


class HttpBotAPI(ModelAPI):
    """A chatbot of your own behind its HTTP API: `http:NAME` with the model's http setting."""

    Settings: ClassVar[type[BackendSettings]] = HttpSettings
    own_bot: ClassVar[bool] = True
    kinds: ClassVar[frozenset[RequestKind]] = frozenset({"chat"})

    def __init__(self, config: ModelConfig) -> None:
        settings = config.settings_as(HttpSettings)
        self.service = settings.http
        self.spec = config.spec
        self.endpoint = without_credentials(self.service.url)
        self.stateful = settings.stateful
        self.structured_mode = config.structured_output or "prompt"
        self.http = JsonHttpClient(self.service.url, self.service.sent_headers(), config.timeout_s)
        self.secrets = self.http.secrets

    async def generate(self, request: Request) -> Completion:
        asked = bot_request(self.spec, request, stateful=self.stateful)
        values: dict[str, JsonValue] = {
            "messages": [m.model_dump() for m in asked.messages],
            "last_user_message": asked.last_user_message,
            "conversation_id": asked.conversation_id,
            "session_id": asked.session_id,
            "language": asked.language,
        }
        started = time.perf_counter()
        response = await self.http.send_json(
            self.service.method, "", render_body(self.service.body, values)
        )
        latency = time.perf_counter() - started
        text = read_reply(response, self.service.reply_path)
        if text is None:
            shown = orjson.dumps(response)[:SHOWN_BYTES].decode("utf-8", "replace")
            raise ModelError(f"no reply at {self.service.reply_path!r} in the response: {shown}")
        return bot_completion(self.spec, text, latency, raw=response)

    def check(self) -> None:
        self.http.check()

    async def aclose(self) -> None:
        await self.http.aclose()
