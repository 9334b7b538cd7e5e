"""Agreement between human annotators: Krippendorff's alpha and pairwise Cohen's kappa."""

from __future__ import annotations

from itertools import combinations

import krippendorff
import numpy as np
from sklearn.metrics import cohen_kappa_score

from dialbench.metaeval.rating_matrix import RatingMatrix, defined, shared
from dialbench.metaeval.scales import KRIPPENDORFF_LEVEL
from dialbench.schema import Record


class HumanAgreementRow(Record):
    """alpha uses the level of the dimension's scale (nominal for binary labels); kappa is
    unweighted, the mean over annotator pairs that share at least two items."""

    dimension: str
    language: str
    scale: str
    alpha_level: str
    n_items: int
    n_annotators: int
    alpha: float | None
    mean_pairwise_kappa: float | None
    n_pairs: int
    note: str | None = None


def krippendorff_alpha(matrix: RatingMatrix) -> tuple[float | None, str | None]:
    humans = matrix.humans
    pairable = humans[humans.notna().sum(axis=1) >= 2]
    if pairable.empty:
        return None, "no item has two human ratings"
    domain = np.unique(pairable.stack().to_numpy())
    if len(domain) < 2:
        return None, f"every rating is {matrix.label_of(domain[0])}: alpha is undefined"
    counts = np.stack([(pairable == value).sum(axis=1).to_numpy() for value in domain], axis=1)
    alpha = krippendorff.alpha(
        value_counts=counts,
        value_domain=domain,
        level_of_measurement=KRIPPENDORFF_LEVEL[matrix.spec.scale],
    )
    value = defined(alpha)
    return value, None if value is not None else "alpha is undefined (no variation to explain)"


class KappaRow(Record):
    """Cohen's kappa (unweighted) of one annotator pair on the items both rated."""

    dimension: str
    language: str
    annotator_a: str
    annotator_b: str
    n_items: int
    kappa: float | None
    note: str | None = None


def pairwise_kappa(matrix: RatingMatrix, max_annotators: int) -> list[KappaRow]:
    """Every annotator pair sharing at least two items; none past `max_annotators`."""
    if len(matrix.annotators) > max_annotators:
        return []
    rows = []
    for a, b in combinations(matrix.annotators, 2):
        x, y = shared(matrix.humans[a], matrix.humans[b])
        if len(x) >= 2:
            kappa = defined(cohen_kappa_score(x, y))
            note = None if kappa is not None else "undefined: both gave one and the same label"
            rows.append(
                KappaRow(
                    dimension=matrix.dimension,
                    language=matrix.language,
                    annotator_a=a,
                    annotator_b=b,
                    n_items=len(x),
                    kappa=kappa,
                    note=note,
                )
            )
    return rows


def _mean_kappa(
    matrix: RatingMatrix, pairs: list[KappaRow], max_annotators: int
) -> tuple[float | None, int, str | None]:
    if len(matrix.annotators) > max_annotators:
        return None, 0, f"pairwise kappa skipped: {len(matrix.annotators)} annotators"
    finite = [p.kappa for p in pairs if p.kappa is not None]
    if not finite:
        return None, 0, "no annotator pair has a defined kappa"
    return float(np.mean(finite)), len(finite), None


def agreement(
    matrix: RatingMatrix, pairs: list[KappaRow], max_annotators: int
) -> HumanAgreementRow:
    """Alpha over all annotators; kappa as the mean of the defined pairwise values in `pairs`."""
    alpha, alpha_note = krippendorff_alpha(matrix)
    kappa, n_pairs, kappa_note = (
        _mean_kappa(matrix, pairs, max_annotators)
        if len(matrix.annotators) >= 2
        else (None, 0, None)
    )
    notes = [n for n in (alpha_note, kappa_note) if n]
    if len(matrix.annotators) < 2:
        notes = ["one annotator only: agreement needs two"]
    return HumanAgreementRow(
        dimension=matrix.dimension,
        language=matrix.language,
        scale=matrix.spec.scale,
        alpha_level=KRIPPENDORFF_LEVEL[matrix.spec.scale],
        n_items=int((matrix.humans.notna().sum(axis=1) >= 2).sum())
        if not matrix.humans.empty
        else 0,
        n_annotators=len(matrix.annotators),
        alpha=alpha,
        mean_pairwise_kappa=kappa,
        n_pairs=n_pairs,
        note="; ".join(notes) or None,
    )
