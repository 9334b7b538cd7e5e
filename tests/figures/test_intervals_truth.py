"""The figures' intervals against independent computations: Hesterberg's expanded level from
tabled t quantiles, SciPy's percentile bootstrap of the per-seed means for a score, statsmodels'
Wilson interval and Clopper–Pearson for a rate."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from dialbench.figures.intervals import chatbot_intervals, mean_interval
from dialbench.resampling import expanded_level
from tests.figures.observed import observations

# Student's t 0.975 quantiles as printed in tables, for n - 1 degrees of freedom.
T_975 = {5: 2.776445, 10: 2.262157, 20: 2.093024, 100: 1.984217}


@pytest.mark.parametrize("n", sorted(T_975))
def test_the_expanded_level_is_hesterbergs(n: int) -> None:
    """alpha'/2 = Phi(-sqrt(n / (n - 1)) t_{alpha/2, n-1}) (Hesterberg 2015, section 4.4):
    about 99.8% at 5 seeds, 98.3% at 10, 96.8% at 20, 95.4% at 100."""
    z = math.sqrt(n / (n - 1)) * T_975[n]
    assert expanded_level(0.95, n) == pytest.approx(math.erf(z / math.sqrt(2)), abs=1e-5)
    assert expanded_level(0.95, 10) == pytest.approx(0.9829, abs=1e-4)


def test_a_scores_interval_is_scipys_percentile_bootstrap_of_the_seed_means() -> None:
    """With as many items in every seed, resampling seeds is resampling the seeds' means."""
    rng = np.random.default_rng(1)
    seeds, items = 15, 3
    values = 1 + rng.binomial(4, rng.beta(2, 5, size=seeds)[:, None], size=(seeds, items))
    units = np.repeat(np.arange(seeds), items).astype(str)
    value, low, high, note = mean_interval(
        values.ravel().astype(float), units, rate=False, resamples=40_000
    )
    reference = stats.bootstrap(
        (values.mean(axis=1),),
        np.mean,
        confidence_level=expanded_level(0.95, seeds),
        n_resamples=40_000,
        method="percentile",
        random_state=np.random.default_rng(2),
    ).confidence_interval
    assert value == pytest.approx(values.mean())
    assert low == pytest.approx(reference.low, abs=0.05)
    assert high == pytest.approx(reference.high, abs=0.05)
    assert note == ""


def test_a_rate_of_one_item_per_seed_is_wilsons_at_students_quantile() -> None:
    """One dialogue a seed: the seeds are the trials, and the quantile is t on 29 degrees of
    freedom (statsmodels' Wilson at the normal level that matches it)."""
    flags = np.zeros(30)
    flags[:4] = 1
    value, low, high, _ = mean_interval(flags, np.arange(30).astype(str), rate=True)
    level = 2 * stats.norm.cdf(stats.t.ppf(0.975, 29)) - 1
    expected = proportion_confint(4, 30, alpha=1 - level, method="wilson")
    assert value == pytest.approx(4 / 30)
    assert (low, high) == pytest.approx(expected)


def test_copies_of_a_seeds_items_add_nothing_to_a_rate() -> None:
    """Items of one seed that always agree are worth one: the design effect takes them back."""
    rng = np.random.default_rng(4)
    flags = (rng.random(25) < 0.2).astype(float)
    once = mean_interval(flags, np.arange(25).astype(str), rate=True)
    thrice = mean_interval(np.repeat(flags, 3), np.repeat(np.arange(25), 3).astype(str), rate=True)
    assert thrice == pytest.approx(once)


def test_an_issue_never_flagged_gets_clopper_pearsons_upper_end_over_seeds() -> None:
    """0 of 20 seeds: the exact binomial interval's upper end, 1 - 0.025^(1/20)."""
    found = chatbot_intervals(observations({"bot": np.zeros((20, 2))}))
    row = found[found["language"] == "en"].iloc[0]
    assert (row["value"], row["low"]) == (0.0, 0.0)
    upper = stats.binomtest(0, 20).proportion_ci(0.95, method="exact").high
    assert row["high"] == pytest.approx(upper)
    assert (row["units"], row["items"]) == (20, 40)


def test_few_seeds_say_so() -> None:
    rng = np.random.default_rng(3)
    found = chatbot_intervals(observations({"bot": rng.integers(0, 2, size=(4, 2))}))
    assert found["note"].str.contains("only 4 seeds").all()
    single = chatbot_intervals(observations({"bot": np.ones((1, 3))}))
    assert single["note"].str.contains("1 seed").all()
