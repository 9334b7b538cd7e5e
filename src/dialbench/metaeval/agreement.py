"""Agreement between human annotators: Krippendorff's alpha and pairwise Cohen's kappa."""

from __future__ import annotations

from itertools import combinations

import krippendorff
import numpy as np
from sklearn.metrics import cohen_kappa_score

from dialbench.metaeval.panels import Panel, defined, shared
from dialbench.metaeval.scales import KRIPPENDORFF_LEVEL
from dialbench.schema import Record


class AgreementRow(Record):
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


def krippendorff_alpha(panel: Panel) -> tuple[float | None, str | None]:
    humans = panel.humans
    pairable = humans[humans.notna().sum(axis=1) >= 2]
    if pairable.empty:
        return None, "no item has two human ratings"
    domain = np.unique(pairable.stack().to_numpy())
    if len(domain) < 2:
        return None, f"every rating is {panel.label_of(domain[0])}: alpha is undefined"
    counts = np.stack([(pairable == value).sum(axis=1).to_numpy() for value in domain], axis=1)
    alpha = krippendorff.alpha(
        value_counts=counts,
        value_domain=domain,
        level_of_measurement=KRIPPENDORFF_LEVEL[panel.spec.scale],
    )
    value = defined(alpha)
    return value, None if value is not None else "alpha is undefined (no variation to explain)"


def pairwise_kappa(panel: Panel, max_annotators: int) -> tuple[float | None, int, str | None]:
    annotators = panel.annotators
    if len(annotators) > max_annotators:
        return None, 0, f"{len(annotators)} annotators: pairwise kappa skipped (see alpha)"
    kappas = []
    for a, b in combinations(annotators, 2):
        x, y = shared(panel.humans[a], panel.humans[b])
        if len(x) >= 2:
            kappas.append(cohen_kappa_score(x, y))
    finite = [k for k in kappas if np.isfinite(k)]
    if not finite:
        return None, len(kappas), "no annotator pair has a defined kappa"
    return float(np.mean(finite)), len(finite), None


def agreement(panel: Panel, max_annotators: int) -> AgreementRow:
    alpha, alpha_note = krippendorff_alpha(panel)
    kappa, pairs, kappa_note = (
        pairwise_kappa(panel, max_annotators) if len(panel.annotators) >= 2 else (None, 0, None)
    )
    notes = [n for n in (alpha_note, kappa_note) if n]
    if len(panel.annotators) < 2:
        notes = ["one annotator only: agreement needs two"]
    return AgreementRow(
        dimension=panel.dimension,
        language=panel.language,
        scale=panel.spec.scale,
        alpha_level=KRIPPENDORFF_LEVEL[panel.spec.scale],
        n_items=int((panel.humans.notna().sum(axis=1) >= 2).sum()) if not panel.humans.empty else 0,
        n_annotators=len(panel.annotators),
        alpha=alpha,
        mean_pairwise_kappa=kappa,
        n_pairs=pairs,
        note="; ".join(notes) or None,
    )
