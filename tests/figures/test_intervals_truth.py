"""The figures' intervals against independent computations: Hesterberg's expanded level from
tabled t quantiles, SciPy's percentile bootstrap of the per-seed means, Clopper–Pearson."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

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


def test_equal_seeds_make_the_interval_scipys_percentile_bootstrap_of_seed_means() -> None:
    """With as many items in every seed, resampling seeds is resampling the seeds' means."""
    rng = np.random.default_rng(1)
    seeds, items = 15, 3
    values = rng.binomial(1, rng.beta(2, 5, size=seeds)[:, None], size=(seeds, items))
    units = np.repeat(np.arange(seeds), items).astype(str)
    value, low, high, note = mean_interval(values.ravel().astype(float), units, resamples=40_000)
    reference = stats.bootstrap(
        (values.mean(axis=1),),
        np.mean,
        confidence_level=expanded_level(0.95, seeds),
        n_resamples=40_000,
        method="percentile",
        random_state=np.random.default_rng(2),
    ).confidence_interval
    assert value == pytest.approx(values.mean())
    assert low == pytest.approx(reference.low, abs=0.015)
    assert high == pytest.approx(reference.high, abs=0.015)
    assert note == ""


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
