"""One inference for every figure with an interval: a bootstrap over clusters, not items.

Turns of one dialogue are not independent (one dialogue's chatbot breaks down again and again),
and nor are self-chats continuing one ChatSEED, so an item bootstrap or a textbook p-value that
counts them as independent claims more certainty than the data holds. Here a resample draws whole
clusters with replacement (an item's dialogue, or for a self-chat its ChatSEED: `ratings_frame`)
and recomputes the figure on their items. The 95% interval is the percentile interval of the
resampled figures, and the p-value against zero is the same distribution read the other way:
twice the share of resamples on the far side of zero (counting the data itself as one, so it is
at least 2/(resamples + 1)), and p < 0.05 where the interval leaves out zero. Below MIN_CLUSTERS
clusters the resamples are too few to trust, and rows say so; so they do where the figure falls
outside its own interval (a figure such as F1 averaged over annotator pairs that share two or
three items is biased under resampling).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

MIN_CLUSTERS = 10
LEVEL = 0.95
DESIGN = (
    "intervals and p-values: 95% percentile bootstrap over dialogues (every turn of a drawn "
    "dialogue comes along; self-chats of one ChatSEED come together), p-values from the same "
    "resamples"
)


@dataclass(frozen=True)
class Resamples:
    """Each row the multiplicity of every item in one resample of whole clusters; row 0 is the
    data as observed (every item once)."""

    weights: np.ndarray
    n_clusters: int

    @classmethod
    def of(cls, clusters: pd.Series, resamples: int, seed: int) -> Resamples:
        """From each item's cluster; the same clusters and seed draw the same resamples."""
        names, cluster = np.unique(clusters.astype(str).to_numpy(), return_inverse=True)
        k = len(names)
        drawn = np.random.default_rng(seed).integers(0, k, size=(resamples, k)) if k else None
        per_cluster = (
            np.stack([np.bincount(row, minlength=k) for row in drawn])
            if drawn is not None
            else np.zeros((resamples, 0))
        )
        observed = np.ones((1, len(clusters)))
        return cls(np.vstack([observed, per_cluster[:, cluster]]).astype(float), k)

    def restricted(self, keep: np.ndarray) -> np.ndarray:
        """The weights of the items in the boolean mask `keep`."""
        return self.weights[:, keep]


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
    tail = (1 - LEVEL) / 2
    low, high = np.quantile(replicates, [tail, 1 - tail])
    if not low <= value <= high:
        notes.append("the figure lies outside its interval: the resampled figures are biased")
    p_value = None
    if test_zero:
        far_side = min((replicates <= 0).sum(), (replicates >= 0).sum())
        p_value = min(1.0, 2 * (far_side + 1) / (replicates.size + 1))
    return Inference(value, float(low), float(high), p_value, "; ".join(notes) or None)
