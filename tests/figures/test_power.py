"""Power planning against statsmodels, a textbook value and the spread of a known pilot."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.power import TTestPower

from dialbench.figures.power import (
    detectable_difference,
    pilot_spreads,
    power_of,
    rate_sd,
    seeds_needed,
)


def test_a_medium_effect_needs_34_pairs() -> None:
    """Cohen's d = 0.5, paired t, two-sided alpha 0.05, 80% power: 34 pairs (G*Power)."""
    assert seeds_needed(0.5, 1.0).seeds == 34
    assert seeds_needed(0.05, 0.1).seeds == 34  # only the ratio counts


def test_the_detectable_difference_is_statsmodels_effect_size_times_the_spread() -> None:
    effect = TTestPower().solve_power(nobs=50, alpha=0.05, power=0.8)
    found = detectable_difference(50, 0.4)
    assert found.difference == pytest.approx(effect * 0.4)
    assert power_of(found.difference, 50, 0.4) == pytest.approx(0.8, abs=1e-6)
    assert detectable_difference(1, 0.4).difference is None


def test_seeds_needed_and_the_detectable_difference_invert_each_other() -> None:
    needed = seeds_needed(0.05, rate_sd(0.2))
    assert detectable_difference(needed.seeds, needed.sd).difference <= 0.05
    assert detectable_difference(needed.seeds - 1, needed.sd).difference > 0.05
    assert power_of(0.05, needed.seeds, needed.sd) >= 0.8


def test_a_rates_spread_is_two_independent_binomial_means() -> None:
    assert rate_sd(0.2) == pytest.approx(math.sqrt(2 * 0.2 * 0.8))
    assert rate_sd(0.2, items=4) == pytest.approx(math.sqrt(2 * 0.2 * 0.8 / 4))
    with pytest.raises(ValueError, match="between 0 and 1"):
        rate_sd(0.0)


def test_the_pilot_spread_pools_every_pairs_per_seed_differences() -> None:
    """Three chatbots on four seeds, two items a seed: each seed's mean per chatbot, the
    differences of each pair, their variances pooled (3 pairs x 3 degrees of freedom)."""
    rng = np.random.default_rng(0)
    values = rng.integers(0, 2, size=(3, 4, 2)).astype(float)  # chatbot, seed, item
    rows = [
        {
            "protocol": "issues",
            "judge": "j",
            "dimension": "issues.x",
            "better": "lower",
            "lowest": 0.0,
            "highest": 1.0,
            "chatbot": f"bot{c}",
            "language": "en",
            "unit": f"s{s}",
            "item": f"s{s}:{i}",
            "value": values[c, s, i],
        }
        for c in range(3)
        for s in range(4)
        for i in range(2)
    ]
    spreads = pilot_spreads(pd.DataFrame(rows))
    means = values.mean(axis=2)
    pairs = [means[a] - means[b] for a, b in ((0, 1), (0, 2), (1, 2))]
    expected = math.sqrt(np.mean([np.var(d, ddof=1) for d in pairs]))
    by_language = {spread.language: spread for spread in spreads}
    assert set(by_language) == {"en", "all"}
    assert by_language["en"].sd == pytest.approx(expected)
    assert (by_language["en"].pairs, by_language["en"].seeds) == (3, 12)
