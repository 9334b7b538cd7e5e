"""A chatbot behind an HTTP API of its own (`http:NAME`): its settings, the body each turn
sends, and where the reply is in the answer.

    spec: http:faq-bot
    http:
      url: http://127.0.0.1:8000/chat
      headers: {Authorization: "Bearer ${FAQ_BOT_KEY}"}     # read from the environment
      body: {session: "{{session_id}}", message: "{{last_user_message}}"}
      reply_path: reply.text
    stateful: true

A string of the body that is one placeholder alone becomes the value itself (`"{{messages}}"`
is a JSON list); inside a longer string a placeholder is replaced by its text. A reply path
is keys and list indices joined by dots (`choices.0.message.content`); `*` takes every element
of a list, their texts joined by line breaks (a bot that answers several messages).
"""

from __future__ import annotations

import os
import re
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import ConfigDict, Field, JsonValue, field_serializer, field_validator

from dialbench.errors import DialbenchError
from dialbench.llm.specs import without_credentials
from dialbench.schema import Record

PLACEHOLDER = re.compile(r"\{\{\s*(\w+)\s*\}\}")
PLACEHOLDERS = ("messages", "last_user_message", "conversation_id", "session_id", "language")
ENVIRONMENT_VARIABLE = re.compile(r"\$\{(\w+)\}")
ALL = "*"


class MissingVariableError(DialbenchError):
    """A header names an environment variable that is not set."""


def path_steps(path: str) -> tuple[str | int, ...]:
    """`choices.0.message.content` as keys and indices; `*` stays a step of its own."""
    steps: list[str | int] = []
    for part in path.split("."):
        if not part:
            raise ValueError(f"reply path {path!r} has an empty step")
        steps.append(int(part) if re.fullmatch(r"-?\d+", part) else part)
    return tuple(steps)


def _placeholders(value: Any) -> set[str]:
    if isinstance(value, str):
        return set(PLACEHOLDER.findall(value))
    if isinstance(value, dict):
        return set().union(*map(_placeholders, value.values()))
    if isinstance(value, list):
        return set().union(*map(_placeholders, value))
    return set()


class HttpService(Record):
    """Where an HTTP chatbot is, what each turn sends it, and where its reply is."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    url: str = Field(description="the URL each turn is sent to")
    method: Literal["POST", "PUT", "PATCH"] = "POST"
    headers: dict[str, str] = Field(
        default_factory=dict,
        description="${VAR} in a value is read from the environment when the bot is made, "
        "never stored",
    )
    body: JsonValue = Field(
        description="JSON template: {{messages}}, {{last_user_message}}, {{conversation_id}}, "
        "{{session_id}}, {{language}}"
    )
    reply_path: str = Field(description="where the reply's text is: keys, indices and * by dots")

    @field_validator("url")
    @classmethod
    def _http_url(cls, url: str) -> str:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{url!r} is no http(s) URL")
        if parts.username or parts.password:
            raise ValueError("put credentials in headers from environment variables, not in url")
        return url

    @field_validator("body")
    @classmethod
    def _known_placeholders(cls, body: JsonValue) -> JsonValue:
        unknown = sorted(_placeholders(body) - set(PLACEHOLDERS))
        if unknown:
            known = ", ".join("{{" + name + "}}" for name in PLACEHOLDERS)
            raise ValueError(f"unknown placeholder {{{{{unknown[0]}}}}} (known: {known})")
        return body

    @field_validator("reply_path")
    @classmethod
    def _readable_path(cls, path: str) -> str:
        path_steps(path)
        return path

    @field_serializer("url")
    def _public_url(self, url: str) -> str:
        return without_credentials(url)

    def sent_headers(self) -> dict[str, str]:
        """The headers with their environment variables read."""

        def variable(match: re.Match[str]) -> str:
            value = os.environ.get(match[1])
            if value is None:
                raise MissingVariableError(f"environment variable {match[1]} is not set")
            return value

        return {
            name: ENVIRONMENT_VARIABLE.sub(variable, value) for name, value in self.headers.items()
        }


def _text(value: JsonValue) -> str:
    return "" if value is None else str(value)


def render_body(template: JsonValue, values: dict[str, JsonValue]) -> JsonValue:
    """The template with its placeholders filled in."""
    if isinstance(template, str):
        whole = PLACEHOLDER.fullmatch(template)
        if whole:
            return values[whole[1]]
        return PLACEHOLDER.sub(
            lambda m: "" if values[m[1]] is None else str(values[m[1]]), template
        )
    if isinstance(template, dict):
        return {key: render_body(value, values) for key, value in template.items()}
    if isinstance(template, list):
        return [render_body(item, values) for item in template]
    return template


def _step(value: Any, step: str | int) -> list[Any]:
    """What one step of a reply path reaches from `value`: nothing, one value, or a list's."""
    if step == ALL:
        return value if isinstance(value, list) else []
    if isinstance(step, int):
        return [value[step]] if isinstance(value, list) and -len(value) <= step < len(value) else []
    return [value[step]] if isinstance(value, dict) and step in value else []


def read_reply(response: Any, path: str) -> str | None:
    """The text at `path`, or None where the response has none there."""
    found = [response]
    for step in path_steps(path):
        found = [reached for value in found for reached in _step(value, step)]
    texts = [value for value in found if isinstance(value, str)]
    return "\n".join(texts) if texts and len(texts) == len(found) else None
