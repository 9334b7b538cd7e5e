"""Is a judge significantly worse than a human? McNemar's test on binary labels.

For judge J, annotator A and a second annotator B as the reference, each item is a pair (J right
about B?, A right about B?). Only the discordant items count: the exact binomial test when there
are fewer than 25 of them, else the chi-square test with continuity correction (statsmodels).
"""

from __future__ import annotations

import numpy as np
from statsmodels.stats.contingency_tables import mcnemar

from dialbench.metaeval.rating_matrix import RatingMatrix
from dialbench.schema import Record

EXACT_BELOW = 25


class McNemarRow(Record):
    dimension: str
    language: str
    judge: str
    annotator: str
    reference: str
    n_items: int
    judge_accuracy: float | None
    human_accuracy: float | None
    judge_only_correct: int
    human_only_correct: int
    p_value: float | None
    exact: bool
    note: str | None = None


def mcnemar_rows(matrix: RatingMatrix, max_annotators: int) -> list[McNemarRow]:
    annotators = matrix.annotators
    if len(annotators) < 2 or len(annotators) > max_annotators:
        return []
    rows = []
    for judge in matrix.judges:
        for annotator in annotators:
            for reference in annotators:
                if reference == annotator:
                    continue
                columns = [matrix.judges[judge], matrix.humans[annotator], matrix.humans[reference]]
                present = np.logical_and.reduce([c.notna().to_numpy() for c in columns])
                j, a, b = (c.to_numpy()[present] for c in columns)
                judge_right, human_right = j == b, a == b
                table = np.array(
                    [
                        [np.sum(judge_right & human_right), np.sum(judge_right & ~human_right)],
                        [np.sum(~judge_right & human_right), np.sum(~judge_right & ~human_right)],
                    ]
                )
                discordant = int(table[0, 1] + table[1, 0])
                exact = discordant < EXACT_BELOW
                n = int(present.sum())
                p_value = float(mcnemar(table, exact=exact, correction=True).pvalue) if n else None
                rows.append(
                    McNemarRow(
                        dimension=matrix.dimension,
                        language=matrix.language,
                        judge=str(judge),
                        annotator=annotator,
                        reference=reference,
                        n_items=n,
                        judge_accuracy=float(judge_right.mean()) if n else None,
                        human_accuracy=float(human_right.mean()) if n else None,
                        judge_only_correct=int(table[0, 1]),
                        human_only_correct=int(table[1, 0]),
                        p_value=p_value,
                        exact=exact,
                        note=None if n else "no item rated by judge, annotator and reference",
                    )
                )
    return rows
