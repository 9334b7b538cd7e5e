"""How metaeval reads the cluster bootstrap (`dialbench.resampling`): one inference for every
figure with an interval, resampling dialogues, not turns.

Turns of one dialogue are not independent (one dialogue's chatbot breaks down again and again),
and nor are self-chats continuing one ChatSEED, so every figure is resampled by whole clusters (an
item's dialogue, or for a self-chat its ChatSEED: `ratings_frame`). A weighted statistic gives the
figure and its resampled values in one call (`observed_and_resampled`), and `infer` turns them
into the figure, its 95% percentile interval and its p-value against zero (below 0.05 where the
interval leaves out zero). Rows say where that is not to be trusted: below MIN_CLUSTERS
dialogues, and where the figure falls outside its own interval (a figure such as F1 averaged over
annotator pairs that share two or three items is biased under resampling).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dialbench.resampling import (
    MIN_CLUSTERS,
    ClusterResamples,
    p_value_against_zero,
    percentile_interval,
)

DESIGN = (
    "intervals and p-values: 95% percentile bootstrap over dialogues (every turn of a drawn "
    "dialogue comes along; self-chats of one ChatSEED come together), p-values from the same "
    "resamples"
)


def observed_and_resampled(drawn: ClusterResamples) -> np.ndarray:
    """Row 0 the data as observed (every item once), then each resample's item weights: one
    call of a weighted statistic gives the figure and its resampled values, as `infer` reads
    them."""
    return np.vstack([np.ones((1, len(drawn.cluster))), drawn.weights])


@dataclass(frozen=True)
class Inference:
    """A figure as observed, its interval and p-value from the resamples (None where
    undefined), and the note that says why or warns."""

    value: float | None
    low: float | None
    high: float | None
    p_value: float | None
    note: str | None


def infer(figures: np.ndarray, n_clusters: int, *, test_zero: bool = True) -> Inference:
    """`figures[0]` is the observed figure, the rest the resampled ones (NaN where undefined)."""
    value = float(figures[0]) if np.isfinite(figures[0]) else None
    replicates = figures[1:][np.isfinite(figures[1:])]
    notes = []
    if n_clusters < MIN_CLUSTERS:
        notes.append(f"only {n_clusters} dialogue(s): unreliable interval")
    if value is None or not replicates.size:
        return Inference(value, None, None, None, "; ".join(notes) or None)
    undefined = len(figures) - 1 - replicates.size
    if undefined:
        notes.append(f"{undefined} of {len(figures) - 1} resamples undefined, left out")
    low, high = percentile_interval(replicates)
    if not low <= value <= high:
        notes.append("the figure lies outside its interval: the resampled figures are biased")
    p_value = p_value_against_zero(replicates) if test_zero else None
    return Inference(value, float(low), float(high), p_value, "; ".join(notes) or None)
