"""The corrected figures against independent computations: ppi_py's PPI++ mean on unclustered,
unweighted data, and a hand derivation for the weighted, clustered case."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dialbench.figures.corrected import (
    MIN_LABELS,
    corrected_differences,
    corrected_intervals,
    estimate,
    interval,
    power_tuned_weight,
)


def _cell(f: list[float], y: list[float], w: list[float], units: list[str]) -> pd.DataFrame:
    return pd.DataFrame({"value": f, "human": y, "weight": w, "unit": units})


def test_unclustered_unweighted_is_ppi_py_ppi_plus_plus_mean() -> None:
    # fixed data: 2,000 judged items each its own seed, 205 labelled with equal weights
    i = np.arange(2000)
    truth = ((i * 7) % 10 < 3).astype(float)
    judge = np.clip(truth + 0.6 * np.sin(i * 1.3), 0, 1)
    labelled = (i * 31) % 97 < 10
    cell = _cell(
        list(judge),
        list(np.where(labelled, truth, np.nan)),
        list(np.where(labelled, 1.0, np.nan)),
        [f"u{k}" for k in i],
    )
    # ppi_py 0.2.3 on these arrays (Y = truth[labelled], Yhat = judge[labelled],
    # Yhat_unlabeled = judge: the estimator's population is every judged item):
    # ppi_mean_pointestimate(..., lam=0.5), and the power-tuned ppi_mean_pointestimate and
    # ppi_mean_ci(..., alpha=0.05) with lam=None. Pinned, not imported: the package installs a
    # top-level `tests` package that would shadow this suite's.
    at_half = 0.29869035156169366
    power_tuned = 0.299531874596979
    ci_power_tuned = (0.2569950249582796, 0.3420687242356784)
    found = estimate(cell, "corrected")
    assert found.value == pytest.approx(power_tuned, abs=2e-4)
    # the same estimate at ppi_py's λ = 0.5: λ F + mean(y - λ f)
    half = 0.5 * judge.mean() + np.mean(truth[labelled] - 0.5 * judge[labelled])
    assert half == pytest.approx(at_half, abs=1e-12)
    low, high = interval(found)
    # Student's t on 204 df is 0.6% wider than ppi_py's normal quantile, and the labelled items
    # being part of the population adds a covariance ppi_py's independent sets do not have;
    # λ differs a little too (ppi_py pools the labelled predictions with the unlabelled ones):
    # within 3% (1.8% here)
    assert (high - low) == pytest.approx(ci_power_tuned[1] - ci_power_tuned[0], rel=0.03)
    assert (low + high) / 2 == pytest.approx(found.value, abs=1e-12)


def test_weighted_clustered_by_hand() -> None:
    # seeds a, a, b, c; judge f; humans y on three items with weights 1/π = 2, 2, 1
    cell = _cell([1, 0, 1, 0], [1, 0, 0, np.nan], [2, 2, 1, np.nan], ["a", "a", "b", "c"])
    labels = estimate(cell, "labels")
    # R = (2·1 + 2·0 + 1·0) / 5; influences w (y - R) / 5: a: 0.24 - 0.16, b: -0.08, c: 0
    assert labels.value == pytest.approx(0.4)
    assert labels.influence.to_dict() == pytest.approx({"a": 0.08, "b": -0.08, "c": 0.0})
    # Var = K/(K-1) Σ u² = 3/2 · 2 · 0.0064; t on (2 labelled seeds - 1) = 1 df: 12.706
    low, high = interval(labels)
    assert high - 0.4 == pytest.approx(12.7062047 * np.sqrt(1.5 * 2 * 0.0064), rel=1e-6)
    assert low == pytest.approx(0.4 - (high - 0.4))
    bias = estimate(cell, "bias")
    # f - y = 0, 0, 1: B = 1/5; influences w (d - B)/5: a: -0.16, b: 0.16
    assert bias.value == pytest.approx(0.2)
    assert bias.influence.to_dict() == pytest.approx({"a": -0.16, "b": 0.16, "c": 0.0})
    # weighted shares 0.4, 0.4, 0.2: mean y 0.4, mean f 0.6, Cov = 0.16; Var(f) over all four
    # items 0.25, n/N = 3/4: λ = 0.16 / (1.75 · 0.25)
    f, y, w = np.array([1.0, 0, 1]), np.array([1.0, 0, 0]), np.array([2.0, 2, 1])
    lam = power_tuned_weight(f, y, w, np.array([1.0, 0, 1, 0]))
    assert lam == pytest.approx(0.16 / (1.75 * 0.25))
    # on three labels, λ tuned again without each seed swings so far that the judge's figure
    # only adds noise: the corrected figure is the labels' alone
    corrected = estimate(cell, "corrected")
    assert (corrected.value, corrected.weight_on_judge) == (pytest.approx(0.4), 0.0)


def _labelled(chatbots: dict[str, float], seeds: int, labels: int, bias: float) -> pd.DataFrame:
    """Two chatbots on the same seeds, a seed effect shared by both, a judge off by `bias`."""
    rng = np.random.default_rng(3)
    rows = []
    for seed in range(seeds):
        effect = rng.normal(0, 1.0)
        for chatbot, mean in chatbots.items():
            truth = mean + effect + rng.normal(0, 0.3)
            rows.append(
                {
                    "protocol": "p",
                    "judge": "j",
                    "dimension": "score",
                    "better": "higher",
                    "lowest": 1.0,
                    "highest": 5.0,
                    "chatbot": chatbot,
                    "language": "de",
                    "unit": f"s{seed}",
                    "item": f"{chatbot}-{seed}",
                    "value": truth + bias + rng.normal(0, 0.3),
                    "human": truth if seed < labels else np.nan,
                    "weight": seeds / labels if seed < labels else np.nan,
                }
            )
    return pd.DataFrame(rows)


def test_corrected_intervals_remove_the_bias_and_say_when_labels_are_too_few() -> None:
    labelled = _labelled({"a": 3.0, "b": 3.0}, seeds=200, labels=40, bias=0.5)
    table = corrected_intervals(labelled).set_index(["chatbot", "language"])
    row = table.loc[("a", "de")]
    assert row["corrected_low"] < row["labels_only"] + 0.3
    assert row["bias_low"] > 0.3  # the judge's +0.5
    assert row["bias_high"] < 0.7
    # the judge tracks the humans: its figure narrows the interval of the labels alone
    assert row["corrected_high"] - row["corrected_low"] < (
        row["labels_only_high"] - row["labels_only_low"]
    )
    few = corrected_intervals(_labelled({"a": 3.0}, seeds=30, labels=MIN_LABELS - 1, bias=0.0))
    assert few["corrected"].isna().all()
    assert few["note"].iloc[0] == "9 labelled items: too few to correct (10 needed)"


def test_corrected_differences_pair_the_shared_seeds() -> None:
    labelled = _labelled({"a": 3.0, "b": 3.4}, seeds=200, labels=60, bias=0.5)
    table = corrected_differences(labelled)
    row = table[table["language"] == "de"].iloc[0]
    assert (row["first"], row["second"], row["design"]) == ("a", "b", "corrected")
    assert row["low"] < -0.4 < row["high"]
    assert bool(row["holds"])
    # the seed effect (sd 1) cancels: the paired interval is far narrower than the two cells'
    # intervals added as if independent
    figures = corrected_intervals(labelled)
    cells = figures[figures["language"] == "de"].set_index("chatbot")
    alone = [cells.loc[c, "corrected_high"] - cells.loc[c, "corrected_low"] for c in "ab"]
    assert row["high"] - row["low"] < 0.5 * np.hypot(*alone)
