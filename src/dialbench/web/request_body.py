"""A write's JSON body as the record it must be, or a 422 naming each bad field: the label and
review writes read their bodies alike."""

from __future__ import annotations

from typing import TypeVar

from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError

from dialbench.io.jsonl import json_value_problems, strict_json_loads
from dialbench.schema import Record

R = TypeVar("R", bound=Record)


def parsed_body(body: bytes, record_type: type[R]) -> R:
    """The body as `record_type`; a key given twice (which `json.loads` would settle silently on
    the last value) is one of the problems named."""
    try:
        value = strict_json_loads(body.decode("utf-8"))
    except ValueError as bad:  # UnicodeDecodeError is one
        raise RequestValidationError(
            [{"loc": ("request body",), "msg": f"not JSON ({bad})", "type": "json_invalid"}]
        ) from None
    problems = [
        {"loc": tuple(field.split(".")), "msg": problem, "type": "value_error"}
        for field, problem in json_value_problems(value)
    ]
    if problems:
        raise RequestValidationError(problems)
    try:
        return record_type.model_validate(value)
    except ValidationError as invalid:
        raise RequestValidationError(invalid.errors()) from None
