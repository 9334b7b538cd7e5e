"""The cluster bootstrap against independent computations: scipy's percentile bootstrap where
every cluster holds one item, and draws, intervals and p-values worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import bootstrap

from dialbench.resampling import ClusterResamples, p_value_against_zero, percentile_interval

VALUES = np.array([2.1, -0.4, 3.3, 1.0, 0.2, 5.6, -1.8, 2.9, 0.7, 1.5, 4.2, -0.9, 2.2, 0.1, 3.0])


def test_one_item_per_cluster_is_scipys_percentile_bootstrap() -> None:
    """With each item its own cluster, the draws are scipy's (the same generator, indices drawn
    as one resamples x items block), and so is the interval of the mean."""
    names = [f"c{i:02d}" for i in range(len(VALUES))]  # sorted as the items are
    drawn = ClusterResamples.draw(names, 999, seed=3)
    means = drawn.weights @ VALUES / len(VALUES)
    scipy = bootstrap(
        (VALUES,), np.mean, n_resamples=999, method="percentile", rng=np.random.default_rng(3)
    )
    low, high = percentile_interval(means)
    assert (low, high) == pytest.approx(scipy.confidence_interval, rel=1e-12)


def test_a_resample_draws_whole_clusters_the_same_way_from_one_seed() -> None:
    """Each row draws as many clusters as there are, with replacement, one row after another
    from one generator; an item weighs what its cluster was drawn. The names are sorted first,
    so the items' order changes nothing."""
    items = ["b", "a", "c", "a", "b", "d"]
    drawn = ClusterResamples.draw(items, 40, seed=11)
    rng = np.random.default_rng(11)
    by_hand = np.array([np.bincount(rng.integers(0, 4, size=4), minlength=4) for _ in range(40)])
    assert drawn.n_clusters == 4
    assert drawn.counts.tolist() == by_hand.tolist()
    assert drawn.weights.tolist() == by_hand[:, [1, 0, 2, 0, 1, 3]].tolist()
    reordered = ClusterResamples.draw(items[::-1], 40, seed=11)
    assert reordered.counts.tolist() == drawn.counts.tolist()
    assert not np.array_equal(ClusterResamples.draw(items, 40, seed=12).counts, drawn.counts)


def test_no_clusters_draw_empty_resamples() -> None:
    drawn = ClusterResamples.draw([], 5, seed=0)
    assert (drawn.n_clusters, drawn.counts.shape, drawn.weights.shape) == (0, (5, 0), (5, 0))


def test_a_statistic_undefined_in_a_resample_leaves_it_out() -> None:
    drawn = ClusterResamples.draw(["x", "y", "z"], 30, seed=1)
    kept = drawn.replicates(lambda counts: counts.astype(float) if counts[0] else None)
    assert kept.tolist() == [row.tolist() for row in drawn.counts if row[0]]
    assert 0 < len(kept) < 30


def test_the_interval_interpolates_between_the_resampled_values() -> None:
    """Five values: the 2.5th percentile lies 0.1 of the way from the first to the second
    (position 0.025 x 4), the 97.5th 0.9 of the way from the fourth to the fifth; a table gets
    one interval per column."""
    low, high = percentile_interval(np.array([5.0, 1.0, 4.0, 2.0, 3.0]))
    assert (low, high) == pytest.approx((1.1, 4.9))
    table = np.array([[1.0, 10.0], [2.0, 20.0], [3.0, 30.0], [4.0, 40.0], [5.0, 50.0]])
    low, high = percentile_interval(table)
    assert low.tolist() == pytest.approx([1.1, 11.0])
    assert high.tolist() == pytest.approx([4.9, 49.0])


def test_the_p_value_is_twice_the_far_side_counting_the_data_as_one() -> None:
    """One of four resamples at or below zero: 2 x (1 + 1) / (4 + 1); none: the floor
    2 / (n + 1); values on both sides in equal numbers: capped at 1."""
    assert p_value_against_zero(np.array([-0.2, 0.1, 0.3, 0.5])) == pytest.approx(0.8)
    assert p_value_against_zero(np.full(999, 0.3)) == pytest.approx(2 / 1000)
    assert p_value_against_zero(np.array([-1.0, 0.0, 1.0])) == 1.0
