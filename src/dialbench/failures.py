"""Work that failed, counted by reason: what a command's closing line says, and what `--strict`
exits on.

A long run records a failed dialogue or an unscored judgment and goes on; the count by reason
is how a user, or a CI job, learns that part of the work is missing without reading the store.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import Field

from dialbench.schema import Record

REASON_CHARS = 100
REASONS_SHOWN = 3
NO_REASON = "no reason recorded"


def reason_of(error: object) -> str:
    """An error's first line, cut to `REASON_CHARS`: errors that differ only in their detail
    (a request id, a body's tail) count as one reason. A record's error may be any JSON value
    (`metadata.error`): its text is used."""
    lines = ("" if error is None else str(error)).strip().splitlines()
    first = lines[0].strip() if lines else ""
    if not first:
        return NO_REASON
    return first if len(first) <= REASON_CHARS else first[: REASON_CHARS - 1] + "…"


class Failures(Record):
    """Failed items of one kind (`what`, plural) by reason."""

    what: str = Field(description="what failed, plural: dialogues, judgments")
    by_reason: dict[str, int] = Field(default_factory=dict, description="reason -> items")

    @property
    def count(self) -> int:
        return sum(self.by_reason.values())

    @property
    def first_reason(self) -> str | None:
        return next(iter(self.by_reason), None)

    def add(self, error: object) -> None:
        reason = reason_of(error)
        self.by_reason[reason] = self.by_reason.get(reason, 0) + 1

    def line(self, of: int) -> str:
        """`12 of 30 dialogues failed: 10 × HTTP 500: boom; 2 × no reply within 2s`, the most
        frequent reasons first."""
        ranked = sorted(self.by_reason.items(), key=lambda item: -item[1])
        shown = "; ".join(f"{n} × {reason}" for reason, n in ranked[:REASONS_SHOWN])
        more = len(ranked) - REASONS_SHOWN
        tail = f"; {more} more reason(s)" if more > 0 else ""
        return f"{self.count} of {of} {self.what} failed: {shown}{tail}"


def work_left(counted: Iterable[tuple[Failures, int]]) -> str | None:
    """What of a stage's work failed, for a run again to retry: each kind's line (`3 of 40
    judgments failed: ...`), joined; None when nothing failed."""
    return "; ".join(failures.line(of) for failures, of in counted if failures.count) or None
