"""How sampled contexts spread over each axis: a check that sampling was balanced."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from dialbench.schema import Record, SeedContext
from dialbench.seeds.sampler import LanguageTarget

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
    counts = {axis: Counter(str(value_of(c)) for c in contexts) for axis, value_of in AXES.items()}
    return _rows(counts, len(contexts))


def crossed_coverage_table(
    one_language: Sequence[SeedContext], languages: Sequence[LanguageTarget]
) -> list[CoverageRow]:
    """`coverage_table` of `one_language`'s contexts crossed with every language, computed
    without building the crossing (a dry run of a large config stays instant)."""
    crossed = len(languages)
    counts = {
        axis: Counter(
            {
                value: n * crossed
                for value, n in Counter(map(str, map(value_of, one_language))).items()
            }
        )
        for axis, value_of in AXES.items()
    }
    per_language = len(one_language)
    counts["language"] = Counter({str(t.language): per_language for t in languages})
    counts["culture"] = Counter()
    for target in languages:
        counts["culture"][str(target.resolved_culture)] += per_language
    return _rows(counts, per_language * crossed)


def _rows(counts_by_axis: dict[str, Counter[str]], total: int) -> list[CoverageRow]:
    rows: list[CoverageRow] = []
    total = total or 1
    for axis, counts in counts_by_axis.items():
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
