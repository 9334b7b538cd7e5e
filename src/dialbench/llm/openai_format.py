"""The OpenAI request and response format, spoken by OpenAI-compatible servers, LiteLLM and
llama.cpp alike: one place that writes request arguments and reads completions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from dialbench.llm.base import (
    Completion,
    GeneratedToken,
    JsonSchema,
    ModelError,
    ReasoningEffort,
    Request,
    StructuredMode,
    TokenLogprob,
    ToolCall,
)
from dialbench.llm.specs import ModelConfig
from dialbench.schema import Usage

REASONING_MODEL = re.compile(r"^(?:[\w.-]+/)?(o\d|gpt-5)")


def is_reasoning_model(name: str) -> bool:
    """o-series and gpt-5 models (optionally behind a provider/ prefix) take other parameters."""
    return bool(REASONING_MODEL.match(name))


def response_format(mode: StructuredMode, schema: JsonSchema) -> dict[str, Any] | None:
    if mode == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": "response", "schema": schema}}
    if mode == "json_object":  # llama.cpp server: a grammar from the schema
        return {"type": "json_object", "schema": schema}
    return None


@dataclass(frozen=True)
class RequestStyle:
    """What one model takes: how to ask for JSON, and whether it is a reasoning model."""

    structured_mode: StructuredMode
    reasoning: bool
    reasoning_effort: ReasoningEffort | None

    @classmethod
    def of(cls, config: ModelConfig, model: str) -> RequestStyle:
        """From the config; a reasoning model unless said otherwise is guessed from its name."""
        reasoning = config.reasoning if config.reasoning is not None else is_reasoning_model(model)
        return cls(
            # json_schema is what OpenAI, vLLM, SGLang, Ollama and llama.cpp's C++ server take;
            # llama_cpp.server (Python) needs structured_output="json_object".
            structured_mode=config.structured_output or "json_schema",
            reasoning=reasoning,
            reasoning_effort=config.reasoning_effort,
        )


def request_arguments(request: Request, style: RequestStyle) -> dict[str, Any]:
    """Everything but model and messages/prompt, without what reasoning models reject
    (temperature, top_p, presence_penalty, stop, seed, logprobs, max_tokens)."""
    params = request.params
    reasoning = style.reasoning
    if reasoning:
        effort = params.reasoning_effort or style.reasoning_effort
        arguments: dict[str, Any] = {"max_completion_tokens": params.max_tokens}
        if effort:
            arguments["reasoning_effort"] = effort
    else:
        arguments = {"max_tokens": params.max_tokens, "temperature": params.temperature}
        if params.top_p is not None:
            arguments["top_p"] = params.top_p
        if params.presence_penalty is not None:
            arguments["presence_penalty"] = params.presence_penalty
        if params.stop:
            arguments["stop"] = list(params.stop)
        if params.seed is not None:
            arguments["seed"] = params.seed
    if request.kind == "complete":
        if request.top_logprobs:
            arguments["logprobs"] = request.top_logprobs
        return arguments
    if request.tools:
        arguments["tools"] = [tool.model_dump() for tool in request.tools]
    if request.json_schema is not None and (
        fmt := response_format(style.structured_mode, request.json_schema)
    ):
        arguments["response_format"] = fmt
    if request.top_logprobs and not reasoning:
        arguments |= {"logprobs": True, "top_logprobs": request.top_logprobs}
    return arguments


def _chat_tokens(logprobs: Any) -> list[GeneratedToken]:
    """`choices[0].logprobs.content`: one entry per token, its alternatives in `top_logprobs`."""
    return [
        GeneratedToken(
            token=entry["token"],
            logprob=entry["logprob"],
            top=[
                TokenLogprob(token=t["token"], logprob=t["logprob"])
                for t in entry.get("top_logprobs") or []
            ],
        )
        for entry in logprobs.get("content") or []
    ]


def _completion_tokens(logprobs: Any) -> list[GeneratedToken]:
    """The legacy completion shape: parallel lists of tokens, their log-probabilities and a
    token -> log-probability mapping of alternatives per position."""
    tokens = logprobs.get("tokens") or []
    chosen = logprobs.get("token_logprobs") or []
    options = logprobs.get("top_logprobs") or []
    return [
        GeneratedToken(
            token=token,
            logprob=logprob,
            top=[TokenLogprob(token=t, logprob=lp) for t, lp in (top or {}).items()],
        )
        for token, logprob, top in zip(tokens, chosen, options, strict=False)
        if logprob is not None
    ]


def _tool_calls(message: Any) -> list[ToolCall]:
    """`choices[0].message.tool_calls`, whatever else a server puts beside a call's fields (an
    `index`). A call sent without an id gets one from its place, as a history must name the
    call each result answers; arguments sent as an object are written as JSON text."""
    return [
        ToolCall.model_validate(
            {
                "id": call.get("id") or f"call_{index}",
                "name": call["function"]["name"],
                "arguments": call["function"].get("arguments") or "{}",
            }
        )
        for index, call in enumerate(message.get("tool_calls") or [])
    ]


def completion_from_response(response: Any, latency_s: float, *, chat: bool) -> Completion:
    """A `Completion` from a decoded chat.completion or text_completion response."""
    try:
        choice = response["choices"][0]
        logprobs = choice.get("logprobs") or {}
        tool_calls: list[ToolCall] = []
        if chat:
            text = choice["message"].get("content") or ""
            tool_calls = _tool_calls(choice["message"])
            tokens = _chat_tokens(logprobs)
        else:
            text = choice["text"]
            tokens = _completion_tokens(logprobs)
        usage = response.get("usage") or {}
        return Completion(
            text=text,
            tool_calls=tool_calls,
            finish_reason=choice.get("finish_reason"),
            usage=Usage(
                prompt_tokens=usage.get("prompt_tokens") or 0,
                completion_tokens=usage.get("completion_tokens") or 0,
            ),
            latency_s=latency_s,
            model=response.get("model") or "",
            top_logprobs=tokens[0].top if tokens else [],
            tokens=tokens,
            raw=response,
        )
    except (KeyError, IndexError, TypeError, AttributeError, ValidationError) as error:
        raise ModelError(
            f"response is not a {'chat ' if chat else ''}completion ({error!r})", retryable=True
        ) from error
