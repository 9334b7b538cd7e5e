"""Each member's weight in a weighted panel: its agreement with the humans in the item's
language on the dimension, metaeval's Krippendorff's alpha (at the dimension's level) of the
member beside one annotator, averaged over the annotators it shares items with and clipped at
0 (a member no better than chance gets no say). A member with no human labels to be measured
on there gets the mean weight of those measured; where none is, every vote counts 1."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import replace

import numpy as np
import pandas as pd

from dialbench.metaeval.agreement import krippendorff_alpha
from dialbench.metaeval.rating_matrix import RatingMatrix, rating_matrices, ratings_frame
from dialbench.ratings import Rating
from dialbench.schema import ALL_LANGUAGES

Weights = dict[str, dict[str, dict[str, float]]]  # language -> dimension -> member -> weight
MEMBER = "\0member"  # the member's column beside an annotator's: no annotator is named so


def member_alpha(matrix: RatingMatrix, member: str) -> float | None:
    """The member's mean alpha against each annotator, clipped at 0; None where no annotator
    shares two items' worth of variation with it."""
    alphas = []
    for annotator in matrix.annotators:
        pair = pd.concat(
            [matrix.humans[[annotator]], matrix.judges[[member]].set_axis([MEMBER], axis=1)],
            axis=1,
        )
        alpha, _ = krippendorff_alpha(replace(matrix, humans=pair))
        if alpha is not None:
            alphas.append(alpha)
    return max(0.0, float(np.mean(alphas))) if alphas else None


def measured_weights(
    humans: list[Rating], members: list[Rating], chatseeds: Mapping[str, str]
) -> dict[tuple[str, str], dict[str, float]]:
    """(language, dimension) -> member -> its clipped alpha, where it can be measured."""
    frame = ratings_frame(humans + members, None, chatseeds)
    measured: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    for matrix in rating_matrices(frame, {}, []):
        if matrix.language == ALL_LANGUAGES or matrix.judges_numeric:
            continue
        for member in matrix.judges.columns:
            alpha = member_alpha(matrix, str(member))
            if alpha is not None:
                measured[(matrix.language, matrix.dimension)][str(member)] = round(alpha, 6)
    return measured


def panel_weights(
    measured: Mapping[tuple[str, str], Mapping[str, float]],
    cells: Iterable[tuple[str, str]],
    members: list[str],
    notes: list[str],
) -> Weights:
    """Every member's weight in every (language, dimension) the panel answers, and a note for
    each weight that is not measured."""
    weights: Weights = defaultdict(dict)
    for language, dimension in sorted(set(cells)):
        found = measured.get((language, dimension), {})
        where = f"{dimension} in {language}"
        if not found:
            notes.append(f"no member has human labels on {where} to be weighted by: equal weights")
            weights[language][dimension] = dict.fromkeys(members, 1.0)
            continue
        mean = round(float(np.mean(list(found.values()))), 6)
        missing = [m for m in members if m not in found]
        if missing:
            notes.append(
                f"{', '.join(missing)}: no human labels on {where}: given the mean weight {mean:g}"
            )
        if not any(found.values()):
            notes.append(
                f"every member's agreement with the humans on {where} is at most chance: its "
                "votes count equally"
            )
        weights[language][dimension] = {m: found.get(m, mean) for m in members}
    return dict(weights)
