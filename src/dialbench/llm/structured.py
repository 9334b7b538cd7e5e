"""JSON output that satisfies a JSON schema, or an explicit *unscored* result.

The backend constrains decoding where it can (OpenAI json_schema, llama.cpp grammar); the output
is still parsed and validated here, because no backend enforces every keyword. An invalid answer
gets a bounded number of re-asks that show the error; after that the result is `unscored` with
the reason, never a default value.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Awaitable, Callable, Sequence

import orjson
from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from pydantic import Field, JsonValue

from dialbench.hashing import canonical_json
from dialbench.llm.base import (
    Completion,
    GeneratedToken,
    GenerationParams,
    JsonSchema,
    Message,
    Request,
)
from dialbench.prompts import load_prompt
from dialbench.schema import ParseStatus, Record, Usage

DEFAULT_MAX_REASKS = 2
Call = Callable[[Request], Awaitable[Completion]]


class StructuredResult(Record):
    value: JsonValue = None
    status: ParseStatus
    error: str | None = Field(default=None, description="why the last answer was rejected")
    raw_outputs: list[str] = Field(default_factory=list, description="every answer, in order")
    usage: Usage = Field(default_factory=Usage)
    tokens: list[GeneratedToken] = Field(
        default_factory=list,
        description="the accepted answer's tokens, when log-probabilities were asked for",
    )


def file_hashes(*, schema_in_prompt: bool) -> dict[str, str]:
    """The prompt files structured output adds to a conversation, by name: part of what shapes
    an answer, so a judge's configuration includes them."""
    names = ["llm_reask", *(["llm_json_instruction"] if schema_in_prompt else [])]
    return {name: load_prompt(name).sha256 for name in names}


class InvalidOutput(ValueError):
    """An answer that is not JSON, or not valid under the schema."""


@functools.lru_cache(maxsize=256)
def _validator(schema_json: bytes) -> Draft202012Validator:
    """One validator per schema: building one costs more than checking an answer with it. The
    key keeps the schema's key order, which decides the error `best_match` reports."""
    return Draft202012Validator(json.loads(schema_json))


def parse_json_output(text: str, schema: JsonSchema) -> JsonValue:
    """The JSON value in `text` (a Markdown code fence around it is allowed), schema-checked."""
    body = text.strip()
    if body.startswith("```"):
        body = body.strip("`").removeprefix("json").strip()
    try:
        value: JsonValue = json.loads(body)
    except json.JSONDecodeError as error:
        raise InvalidOutput(f"not valid JSON ({error})") from error
    problem = best_match(_validator(orjson.dumps(schema)).iter_errors(value))
    if problem is not None:
        where = "/".join(str(p) for p in problem.absolute_path) or "the top level"
        raise InvalidOutput(f"at {where}: {problem.message}")
    return value


async def structured_output(
    call: Call,
    messages: Sequence[Message],
    schema: JsonSchema,
    params: GenerationParams,
    *,
    schema_in_prompt: bool,
    max_reasks: int = DEFAULT_MAX_REASKS,
    sample: int = 0,
    top_logprobs: int | None = None,
) -> StructuredResult:
    """Ask, validate, re-ask up to `max_reasks` times, then give up as unscored. `sample`
    numbers independent draws of the same question (it is part of every call's cache key);
    `top_logprobs` asks for each token's alternatives (`llm/expected.py` reads them)."""
    schema_text = canonical_json(schema)
    reask = load_prompt("llm_reask")
    conversation = list(messages)
    if schema_in_prompt:
        instruction = load_prompt("llm_json_instruction")
        conversation.append(Message(role="system", content=instruction.format(schema=schema_text)))
    outputs: list[str] = []
    usage = Usage()
    error = ""
    for _ in range(max_reasks + 1):
        request = Request(
            kind="chat",
            messages=tuple(conversation),
            params=params,
            json_schema=schema,
            sample=sample,
            top_logprobs=top_logprobs,
        )
        completion = await call(request)
        outputs.append(completion.text)
        usage = usage + completion.usage
        try:
            value = parse_json_output(completion.text, schema)
        except InvalidOutput as invalid:
            error = str(invalid)
        else:
            return StructuredResult(
                value=value,
                status="ok",
                raw_outputs=outputs,
                usage=usage,
                tokens=completion.tokens,
            )
        conversation += [
            Message(role="assistant", content=completion.text),
            Message(role="user", content=reask.format(error=error, schema=schema_text)),
        ]
    return StructuredResult(status="unscored", error=error, raw_outputs=outputs, usage=usage)
