"""How sampled contexts spread over each axis: a check that sampling was balanced."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from dialbench.schema import Record, SeedContext

AXES: dict[str, Callable[[SeedContext], object]] = {
    "language": lambda c: c.language,
    "culture": lambda c: c.culture,
    "affect quadrant": lambda c: c.metadata.get("affect_quadrant"),
    "affective state": lambda c: c.affective_state,
    "affect origin": lambda c: c.metadata.get("affect_origin"),
    "gender": lambda c: c.gender or "from text",
    "scene": lambda c: c.scene,
    "persona": lambda c: c.persona,
}
# Free-text axes are summarised (distinct values, heaviest reuse) instead of listed.
SUMMARISED = ("scene", "persona")


class CoverageRow(Record):
    axis: str
    value: str
    contexts: int
    share: float


def coverage_table(contexts: Sequence[SeedContext]) -> list[CoverageRow]:
    """One row per axis value (largest first); scenes and personas as distinct/most-used rows."""
    rows: list[CoverageRow] = []
    total = len(contexts) or 1
    for axis, value_of in AXES.items():
        counts = Counter(str(value_of(c)) for c in contexts)
        if axis in SUMMARISED:
            most = max(counts.values(), default=0)
            distinct = len(counts)
            rows.append(
                CoverageRow(axis=axis, value="distinct", contexts=distinct, share=distinct / total)
            )
            rows.append(
                CoverageRow(axis=axis, value="most used", contexts=most, share=most / total)
            )
            continue
        rows += [
            CoverageRow(axis=axis, value=value, contexts=count, share=count / total)
            for value, count in counts.most_common()
        ]
    return rows
