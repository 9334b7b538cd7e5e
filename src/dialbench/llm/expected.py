"""The expected value of a numeric JSON field from the answer's token log-probabilities.

G-Eval's probability-weighted score: instead of the one value a judge wrote, the mean of the
allowed values weighted by the probability the model gave each at the position where it wrote
the value. The position is found in the answer itself (the field's value in the JSON text, then
the token that covers it), so a field after free text (a reason) is scored as well as a first
token. The probabilities are those of the allowed values among the position's top alternatives,
renormalised. No log-probabilities, no such position, or no allowed value among the alternatives
make the field unscored with the reason: falling back on the written value would hide that the
method did not apply.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

from pydantic import Field

from dialbench.llm.base import GeneratedToken
from dialbench.schema import ParseStatus, Record

TOP_LOGPROBS = 20
DIGITS = 4  # of a score and its probabilities: finer is noise at these sample sizes


class ScoredField(Record):
    """A numeric field of a JSON answer whose value becomes an expectation: its allowed values
    must each be written as one token (single digits are, in every tokenizer dialbench meets)."""

    name: str = Field(min_length=1)
    values: list[int] = Field(min_length=2)


class FieldExpectation(Record):
    """One field's expectation and what it came from, for audit."""

    field: str
    status: ParseStatus
    expected: float | None = None
    argmax: int | None = Field(default=None, description="the most probable allowed value")
    probabilities: dict[str, float] = Field(
        default_factory=dict, description="allowed value -> renormalised probability"
    )
    mass: float | None = Field(
        default=None, description="the allowed values' probability before renormalising"
    )
    error: str | None = None


def value_offset(text: str, name: str) -> int | None:
    """The character offset in `text` where the top-level JSON object's `name` field's value
    starts, or None when the text holds no such object or field."""
    decoder = json.JSONDecoder()
    start = text.find("{")
    if start < 0:
        return None
    index = start + 1
    try:
        while True:
            index = _skip_space(text, index)
            if text[index] != '"':
                return None
            key, index = decoder.raw_decode(text, index)
            index = _skip_space(text, index)
            if text[index] != ":":
                return None
            value_start = _skip_space(text, index + 1)
            if key == name:
                return value_start
            _, index = decoder.raw_decode(text, value_start)
            index = _skip_space(text, index)
            if text[index] != ",":
                return None
            index += 1
    except (IndexError, ValueError):
        return None


def _skip_space(text: str, index: int) -> int:
    while text[index] in " \t\r\n":
        index += 1
    return index


def token_at(text: str, tokens: Sequence[GeneratedToken], offset: int) -> GeneratedToken | None:
    """The generated token whose text covers `offset`. Tokens are laid over the text in order,
    each where it next occurs: a token that does not occur (part of a multi-byte character a
    server decoded on its own) is passed over without losing the place of those after it."""
    cursor = 0
    for token in tokens:
        if not token.token:
            continue
        where = text.find(token.token, cursor)
        if where < 0:
            continue
        end = where + len(token.token)
        if where <= offset < end:
            return token
        if where > offset:
            return None
        cursor = end
    return None


def _value_of(token: str) -> str:
    return token.strip().strip('"')


def expectation(
    text: str, tokens: Sequence[GeneratedToken], scored: ScoredField
) -> FieldExpectation:
    """The expected value of `scored` in the JSON answer `text`, from its generated tokens."""

    def unscored(error: str) -> FieldExpectation:
        return FieldExpectation(field=scored.name, status="unscored", error=error)

    if not tokens:
        return unscored("the backend returned no log-probabilities")
    offset = value_offset(text, scored.name)
    if offset is None:
        return unscored(f"no {scored.name!r} field in the answer")
    token = token_at(text, tokens, offset)
    if token is None:
        return unscored(f"no generated token covers the {scored.name!r} value")
    options = list(token.top)
    if all(option.token != token.token for option in options):
        options.append(token)  # the written token counts, wherever it ranked
    allowed = {str(value): 0.0 for value in scored.values}
    for option in options:
        if (value := _value_of(option.token)) in allowed:
            allowed[value] += math.exp(option.logprob)
    mass = sum(allowed.values())
    if mass == 0.0:
        shown = ", ".join(repr(option.token) for option in options[:5])
        return unscored(
            f"no allowed {scored.name!r} value among the {len(options)} top tokens ({shown}, ...)"
        )
    probabilities = {value: p / mass for value, p in allowed.items()}
    return FieldExpectation(
        field=scored.name,
        status="ok",
        expected=round(sum(int(value) * p for value, p in probabilities.items()), DIGITS),
        argmax=int(max(probabilities, key=lambda value: probabilities[value])),
        probabilities={value: round(p, DIGITS) for value, p in probabilities.items()},
        mass=round(mass, DIGITS),
    )
