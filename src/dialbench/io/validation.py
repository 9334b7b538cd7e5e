"""Turning raw values into records, with pydantic's complaints rewritten as located input errors."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from dialbench.errors import InputError, InputErrors
from dialbench.io.file_format import Item
from dialbench.schema import Record

R = TypeVar("R", bound=Record)

_FRIENDLIER = {
    ("turns", "too_short"): "a dialogue needs at least one turn",
    ("labels", "too_short"): "an annotation needs at least one label",
}


def describe_error(error: ErrorDetails) -> tuple[str, str]:
    """A pydantic error as (dotted field, message), in the words every input error uses."""
    field = ".".join(str(part) for part in error["loc"]) or "(record)"
    last = str(error["loc"][-1]) if error["loc"] else ""
    message = _FRIENDLIER.get((last, error["type"]), error["msg"])
    if error["type"] in {"literal_error", "extra_forbidden", "enum"}:
        shown = repr(error.get("input"))
        message += f" (got {shown if len(shown) <= 60 else shown[:57] + '...'})"
    return field, message


def validate_record(
    record_type: type[R], value: dict[str, Any], file: str | Path, line: int | None
) -> R:
    """Validate one value as a record; each problem becomes an InputError at file:line."""
    try:
        return record_type.model_validate(value)
    except ValidationError as invalid:
        located = [
            InputError(file, message, line=line, field=field)
            for field, message in map(describe_error, invalid.errors())
        ]
        raise InputErrors(located) from None


def validate_items(
    file: str | Path, items: Iterable[Item], record_type: type[R], max_errors: int = 200
) -> list[tuple[int | None, R]]:
    """Validate every raw item of a file, collecting all problems; raise if there was any."""
    records: list[tuple[int | None, R]] = []
    errors: list[InputError] = []
    for line, item in items:
        if isinstance(item, InputError):
            errors.append(item)
        else:
            try:
                records.append((line, validate_record(record_type, item, file, line)))
            except InputErrors as bad:
                errors.extend(bad.errors)
        if len(errors) >= max_errors:
            raise InputErrors(errors, more=True)
    if errors:
        raise InputErrors(errors)
    return records
