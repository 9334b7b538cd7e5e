"""The cluster bootstrap behind every interval and p-value: whole clusters drawn with
replacement, never single items.

Items of one cluster are not independent (the turns of one dialogue, the self-chats and
comparisons of one ChatSEED), so a resample that drew items one by one would claim more certainty
than the data holds. Here a resample draws as many clusters as there are, with replacement, and
every item of a drawn cluster comes along as often as its cluster was drawn. The draws are made
once from a seed, so every figure computed on them is resampled the same way and can be
reproduced. The interval is the percentile interval of a statistic's resampled values, and the
p-value against zero reads the same values the other way. Below MIN_CLUSTERS clusters the
resamples are too few to trust.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

LEVEL = 0.95
RESAMPLES = 2000  # bootstrap draws behind an interval
MIN_CLUSTERS = 10

Counts = npt.NDArray[np.int64]
Values = npt.NDArray[np.float64]


@dataclass(frozen=True)
class ClusterResamples:
    """`counts[r, c]`: how often resample r drew cluster c (a row sums to the number of
    clusters); `cluster[i]`: item i's cluster, its index among the clusters' names sorted."""

    counts: Counts
    cluster: npt.NDArray[np.intp]

    @classmethod
    def draw(cls, clusters: npt.ArrayLike, resamples: int, seed: int) -> ClusterResamples:
        """From each item's cluster name; the same names and seed draw the same resamples,
        whatever the items' order."""
        names, cluster = np.unique(np.asarray(clusters, dtype=str), return_inverse=True)
        k = len(names)
        drawn = np.random.default_rng(seed).integers(0, k, size=(resamples, k))
        offset = k * np.arange(resamples)[:, None]  # one bincount for every row at once
        counts = np.bincount((drawn + offset).ravel(), minlength=resamples * k)
        return cls(counts.reshape(resamples, k), cluster)

    @property
    def n_clusters(self) -> int:
        return int(self.counts.shape[1])

    @property
    def weights(self) -> Values:
        """Each item's multiplicity in each resample, one row per resample: a statistic that
        weights items by a row is the statistic of that resample."""
        return self.counts[:, self.cluster].astype(float)

    def replicates(self, statistic: Callable[[Counts], Values | None]) -> Values:
        """The statistic of each resample (given its row of `counts`), one row per resample;
        a resample where it is undefined (None) is left out."""
        found = [value for value in map(statistic, self.counts) if value is not None]
        return np.array(found, dtype=float)


def no_event_high(n_clusters: int) -> float:
    """The upper end for a share that is 0 in every cluster (an issue never flagged, a judge
    never moved): no spread to learn from, and an interval of the point 0 would miss every
    small true share. Clopper–Pearson's for no event in `n_clusters` trials, a cluster one
    trial: conservative, as a cluster's chance of any event is at least the share."""
    return float(1 - ((1 - LEVEL) / 2) ** (1 / n_clusters))


def expanded_level(level: float, n_clusters: int) -> float:
    """The level whose percentile interval covers `level` of the time with few clusters.

    A percentile interval is too narrow with few clusters (a resample's spread is the
    data's times sqrt((n-1)/n), and its tails are normal where Student's t would be right): at
    ten clusters a "95%" interval covers about 90%. Hesterberg's expanded percentile interval
    (The American Statistician 69(4), 2015) widens the level to what makes the normal quantile
    equal sqrt(n/(n-1)) times Student's, and leaves large n as it was."""
    from scipy import stats

    if n_clusters < 2:
        return level
    t = stats.t.ppf((1 + level) / 2, df=n_clusters - 1)
    return float(2 * stats.norm.cdf(np.sqrt(n_clusters / (n_clusters - 1)) * t) - 1)


def cluster_mean_interval(
    values: npt.ArrayLike, clusters: npt.ArrayLike, resamples: int = RESAMPLES, seed: int = 0
) -> tuple[float, float]:
    """The expanded percentile interval of the mean of the items' `values`, whole clusters
    resampled: the interval of a score over seeds, or of a shift over base dialogues."""
    drawn = ClusterResamples.draw(clusters, resamples, seed)
    k = drawn.n_clusters
    sums = np.bincount(drawn.cluster, weights=np.asarray(values, dtype=float), minlength=k)
    sizes = np.bincount(drawn.cluster, minlength=k)
    resampled = (drawn.counts @ sums) / (drawn.counts @ sizes)
    low, high = percentile_interval(resampled, expanded_level(LEVEL, k))
    return float(low), float(high)


def percentile_interval(replicates: Values, level: float = LEVEL) -> tuple[Values, Values]:
    """The central `level` of the resampled values, per column where each row is a resample."""
    tail = (1 - level) / 2
    low, high = np.quantile(replicates, [tail, 1 - tail], axis=0)
    return low, high


def p_value_against_zero(replicates: Values) -> float:
    """Twice the share of resamples on the far side of zero, counting the data itself as one,
    so never below 2 / (resamples + 1); below 0.05 where the 95% interval leaves out zero."""
    far_side = min(int((replicates <= 0).sum()), int((replicates >= 0).sum()))
    return min(1.0, 2 * (far_side + 1) / (replicates.size + 1))
