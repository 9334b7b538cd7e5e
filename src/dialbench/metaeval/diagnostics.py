"""Judge diagnostics: how often a judge gave nothing usable, how its values are distributed next
to the humans', and for pairwise judges whether the verdict survives swapping the two sides."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from dialbench.metaeval.rating_matrix import RatingMatrix
from dialbench.ratings import UNSCORED, JudgeNames
from dialbench.schema import ALL_LANGUAGES, Judgment, Record

HUMANS = "humans"
FIRST, SECOND, TIE = "first", "second", "tie"


class UnscoredRow(Record):
    judge: str
    language: str
    outputs: int
    unscored: int
    rate: float


class DistributionRow(Record):
    dimension: str
    language: str
    rater: str
    value: str
    count: int
    share: float


class ConsistencyRow(Record):
    """Pairwise judgments with `result["winner"]` in first/second/tie, judged in both orders."""

    judge: str
    pairs: int
    consistent: int
    rate: float | None
    note: str | None = None


def unscored_rates(frame: pd.DataFrame) -> list[UnscoredRow]:
    """Per judge, over all languages and in each: judge outputs (items x dimensions) that carry
    no usable value."""
    judged = frame[frame["kind"] == "judge"]
    everywhere = judged.assign(language=ALL_LANGUAGES)
    rows = []
    for (judge, language), part in pd.concat([everywhere, judged]).groupby(
        ["rater", "language"], sort=False
    ):
        unscored = int(((part["dimension"] == UNSCORED) | part["value"].isna()).sum())
        rows.append(
            UnscoredRow(
                judge=str(judge),
                language=str(language),
                outputs=len(part),
                unscored=unscored,
                rate=unscored / len(part),
            )
        )
    return rows


def distributions(matrix: RatingMatrix) -> list[DistributionRow]:
    """Shares of each value: all humans pooled, then each judge."""
    columns = [(HUMANS, matrix.humans.stack(), False)] + [
        (str(judge), matrix.judges[judge].dropna(), True) for judge in matrix.judges
    ]
    rows: list[DistributionRow] = []
    for rater, values, is_judge in columns:
        counts = values.value_counts().sort_index()
        codes, numbers = counts.index.to_numpy(dtype=float), counts.to_numpy()
        total = int(numbers.sum())
        rows.extend(
            DistributionRow(
                dimension=matrix.dimension,
                language=matrix.language,
                rater=rater,
                value=matrix.label_of(code, judge=is_judge),
                count=int(count),
                share=count / total,
            )
            for code, count in zip(codes, numbers, strict=True)
        )
    return rows


def _preferred(judgment: Judgment) -> str | None:
    """The id of the dialogue the judge preferred, TIE, or None when the result says neither."""
    winner = (judgment.result or {}).get("winner")
    target = judgment.target
    if winner == FIRST:
        return target.dialogue_id
    if winner == SECOND:
        return target.other_dialogue_id
    return TIE if winner == TIE else None


def position_consistency(judgments: Sequence[Judgment]) -> list[ConsistencyRow]:
    verdicts: dict[tuple[str, str, str], str | None] = {}
    name_of = JudgeNames(judgments, compared_protocols=True)
    for judgment in judgments:
        if judgment.target.kind == "pair" and judgment.sample_index == 0:
            key = (
                name_of(judgment),
                judgment.target.dialogue_id,
                judgment.target.other_dialogue_id or "",
            )
            verdicts[key] = _preferred(judgment)
    rows = []
    for judge in sorted({key[0] for key in verdicts}):
        pairs = consistent = 0
        for (name, a, b), verdict in verdicts.items():
            swapped = verdicts.get((name, b, a), "missing")
            if name != judge or a > b or swapped == "missing":
                continue
            if verdict is None or swapped is None:
                continue
            pairs += 1
            consistent += verdict == swapped
        rows.append(
            ConsistencyRow(
                judge=judge,
                pairs=pairs,
                consistent=consistent,
                rate=consistent / pairs if pairs else None,
                note=None if pairs else "no pair was judged in both orders with a usable winner",
            )
        )
    return rows
