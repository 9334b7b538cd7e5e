"""Turning raw values into records, with pydantic's complaints rewritten as located input errors."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
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


class Problems:
    """The problems of one input, collected so a user sees them all at once, up to a limit:
    past it reading stops (a wrong file is not worth reading to its end)."""

    def __init__(self, limit: int = 200) -> None:
        self.limit = limit
        self.errors: list[InputError] = []

    def add(self, errors: Iterable[InputError]) -> None:
        self.errors.extend(errors)
        if len(self.errors) >= self.limit:
            raise InputErrors(self.errors, more=True)

    def raise_any(self) -> None:
        if self.errors:
            raise InputErrors(self.errors)


def validated_items(
    file: str | Path, items: Iterable[Item], record_type: type[R], problems: Problems
) -> Iterator[tuple[int | None, R]]:
    """The valid records among raw items, one at a time; each problem goes to `problems`."""
    for line, item in items:
        if isinstance(item, InputError):
            problems.add([item])
            continue
        try:
            record = validate_record(record_type, item, file, line)
        except InputErrors as bad:
            problems.add(bad.errors)
            continue
        yield line, record


def validate_items(
    file: str | Path, items: Iterable[Item], record_type: type[R], max_errors: int = 200
) -> list[tuple[int | None, R]]:
    """Validate every raw item of a file, collecting all problems; raise if there was any."""
    problems = Problems(max_errors)
    records = list(validated_items(file, items, record_type, problems))
    problems.raise_any()
    return records
