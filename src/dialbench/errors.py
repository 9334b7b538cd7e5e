"""Errors a user can act on. The CLI prints their message and exits non-zero, never a traceback."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


class DialbenchError(Exception):
    """Base of every error dialbench reports to a user as a plain message."""


class InputError(DialbenchError):
    """Bad input, located by file, line (or row) and field so the user can go straight to it."""

    def __init__(
        self, file: str | Path, message: str, *, line: int | None = None, field: str | None = None
    ) -> None:
        self.file, self.line, self.field, self.message = str(file), line, field, message
        where = self.file if line is None else f"{self.file}:{line}"
        what = message if field is None else f"field '{field}': {message}"
        super().__init__(f"{where}: {what}")


class InputErrors(DialbenchError):
    """Every problem found in one input (up to a limit); nothing from that input was stored."""

    SHOWN = 20

    def __init__(self, errors: Sequence[InputError], *, more: bool = False) -> None:
        self.errors = list(errors)
        lines = [str(e) for e in self.errors[: self.SHOWN]]
        hidden = len(self.errors) - len(lines)
        if hidden or more:
            lines.append(f"... and {'more' if more else hidden} further problems")
        count = f"{len(self.errors)}{'+' if more else ''}"
        header = f"{count} problem(s) in {self.errors[0].file}; nothing was imported"
        super().__init__("\n".join([header, *lines]))
