"""Differences between chatbots against SciPy's own tests, and the corrections against a
hand-computed Holm and Benjamini–Hochberg and statsmodels."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from dialbench.figures.differences import chatbot_differences, compare_pair
from dialbench.figures.family import Correction, correct
from tests.figures.observed import observations

P_VALUES = np.array([0.001, 0.008, 0.039, 0.041, 0.042, 0.06, 0.074, 0.205, 0.212, 0.216])


def test_shared_seeds_are_students_paired_t_on_the_seed_means() -> None:
    rng = np.random.default_rng(0)
    difficulty = rng.normal(size=(12, 1))
    first = (rng.normal(size=(12, 3)) + difficulty + 0.4 > 0).astype(float)
    second = (rng.normal(size=(12, 3)) + difficulty > 0).astype(float)
    found = chatbot_differences(observations({"a": first, "b": second}))
    row = found[found["language"] == "en"].iloc[0]
    reference = stats.ttest_rel(first.mean(axis=1), second.mean(axis=1))
    interval = reference.confidence_interval(0.95)
    assert row["design"] == "paired"
    assert row["units"] == 12
    assert row["difference"] == pytest.approx(first.mean() - second.mean())
    assert row["p_value"] == pytest.approx(reference.pvalue)
    assert (row["low"], row["high"]) == pytest.approx((interval.low, interval.high))
    assert row["worse_by"] == pytest.approx(row["difference"])  # an issue: higher is worse


def test_no_shared_seeds_fall_back_to_welch() -> None:
    first = pd.Series([0.2, 0.5, 0.1, 0.4, 0.3], index=[f"a{i}" for i in range(5)])
    second = pd.Series([0.6, 0.9, 0.4, 0.8], index=[f"b{i}" for i in range(4)])
    row = compare_pair(first, second)
    reference = stats.ttest_ind(first, second, equal_var=False)
    interval = reference.confidence_interval(0.95)
    assert row["design"] == "unpaired"
    assert row["p_value"] == pytest.approx(reference.pvalue)
    assert (row["low"], row["high"]) == pytest.approx((interval.low, interval.high))


def holm(p: np.ndarray) -> np.ndarray:
    order = np.argsort(p)
    stepped = np.maximum.accumulate((len(p) - np.arange(len(p))) * p[order])
    adjusted = np.empty_like(p)
    adjusted[order] = np.minimum(stepped, 1)
    return adjusted


def benjamini_hochberg(p: np.ndarray) -> np.ndarray:
    order = np.argsort(p)
    scaled = p[order] * len(p) / np.arange(1, len(p) + 1)
    adjusted = np.empty_like(p)
    adjusted[order] = np.minimum(np.minimum.accumulate(scaled[::-1])[::-1], 1)
    return adjusted


@pytest.mark.parametrize(
    ("correction", "by_hand"), [("holm", holm), ("fdr_bh", benjamini_hochberg)]
)
def test_the_corrections_are_holm_and_benjamini_hochberg(
    correction: Correction, by_hand: Callable[[np.ndarray], np.ndarray]
) -> None:
    table = pd.DataFrame({"p_value": [*P_VALUES, np.nan]})  # an untested row stays out
    found = correct(table, correction)
    reject, adjusted, _, _ = multipletests(P_VALUES, 0.05, method=correction)
    assert found["p_adjusted"].iloc[:-1].to_numpy() == pytest.approx(by_hand(P_VALUES))
    assert found["p_adjusted"].iloc[:-1].to_numpy() == pytest.approx(adjusted)
    assert found["holds"].iloc[:-1].tolist() == reject.tolist()
    assert np.isnan(found["p_adjusted"].iloc[-1])
    assert not found["holds"].iloc[-1]
