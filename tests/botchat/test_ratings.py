"""Ratings on hand-computed cases and their properties: vanilla and bootstrap ELO exactly as
BotChat computes them, Bradley–Terry by maximum likelihood with cluster-bootstrap intervals."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from dialbench.botchat.elo import (
    BradleyTerry,
    Game,
    LengthControlled,
    Outcome,
    bootstrap_elo,
    bradley_terry,
    elo,
    length_controlled,
    permutations,
    shuffled_elo_rounds,
)
from dialbench.errors import DialbenchError

WIN, TIE, LOSS = Game("a", "b", "a"), Game("a", "b", "tie"), Game("a", "b", "b")


def test_vanilla_elo_matches_the_hand_computed_updates() -> None:
    # a wins from 1000/1000: E = 0.5, so a gains K * 0.5 = 16
    assert elo([WIN], ["a", "b"]) == {"a": 1016.0, "b": 984.0}
    # then a tie: E_a = 1 / (1 + 10^(-32/400)) = 0.545922..., a loses 32 * 0.045922 = 1.46950
    after_tie = elo([WIN, TIE], ["a", "b"])
    assert after_tie["a"] == pytest.approx(1014.5304985, abs=1e-6)
    assert after_tie["b"] == pytest.approx(985.4695015, abs=1e-6)
    # then a loss
    assert elo([WIN, TIE, LOSS], ["a", "b"])["a"] == pytest.approx(997.1953025, abs=1e-6)
    # zero-sum: the two ratings always add up to 2000
    assert sum(elo([WIN, TIE, LOSS, WIN], ["a", "b"]).values()) == pytest.approx(2000)


def test_the_bootstrap_runs_each_round_on_its_own_order_of_the_input() -> None:
    """FastChat's bootstrap once read a global table instead of its argument, so every round
    saw the same data: here each round must be ELO over that round's permutation."""
    comparisons = [WIN, LOSS, TIE, WIN, Game("b", "c", "b"), Game("c", "a", "tie")]
    models = ["a", "b", "c"]
    orders = permutations(len(comparisons), 50, seed=3)
    assert all(sorted(row) == list(range(len(comparisons))) for row in orders)
    assert len({tuple(row) for row in orders}) > 1
    rounds = shuffled_elo_rounds(comparisons, models, orders)
    for row, order in zip(rounds, orders, strict=True):
        expected = elo([comparisons[i] for i in order], models)
        assert row == pytest.approx([expected[m] for m in models])
    assert len({tuple(np.round(row, 6)) for row in rounds}) > 1  # the order matters for ELO
    # another seed draws other orders
    assert not np.array_equal(orders, permutations(len(comparisons), 50, seed=4))


def test_bootstrap_elo_takes_the_median_then_averages_over_seeds() -> None:
    # every order of identical comparisons is the same: the bootstrap ELO is the vanilla one
    [a, b] = bootstrap_elo([WIN, WIN, WIN], ["a", "b"], rounds=20, seeds=range(3))
    assert a.elo == pytest.approx(1043.7476, abs=1e-3)
    assert b.elo == pytest.approx(2000 - 1043.7476, abs=1e-3)
    assert a.std_across_seeds == pytest.approx(0.0)
    # one win each way: each order ends at 998.53 or 1001.47 for a; with an odd number of
    # rounds the median is one of the two, and the mean over seeds lies between them
    [a, _] = bootstrap_elo([WIN, LOSS], ["a", "b"], rounds=11, seeds=range(10))
    assert 998.53 - 1e-2 <= a.elo <= 1001.47 + 1e-2
    assert (a.seeds, a.rounds) == (10, 11)


def test_bradley_terry_maximum_likelihood_on_hand_computed_cases() -> None:
    # 3 wins to 1: θa - θb = ln 3, P(a beats b) = 3/4; on the ELO scale ±(400/ln 10)(ln 3)/2
    fit = bradley_terry([WIN, WIN, WIN, LOSS], ["a", "b"], resamples=10)
    assert fit.rating[0] == pytest.approx(1095.4243, abs=1e-2)
    assert fit.rating[1] == pytest.approx(904.5757, abs=1e-2)
    assert fit.win_probability[0][1] == pytest.approx(0.75, abs=1e-4)
    # a tie is half a win each: 1 win + 2 ties = 2 "wins" to 1, so P = 2/3
    fit = bradley_terry([WIN, TIE, TIE], ["a", "b"], resamples=10)
    assert fit.win_probability[0][1] == pytest.approx(2 / 3, abs=1e-4)
    assert fit.rating[0] == pytest.approx(1000 + 400 / math.log(10) * math.log(2) / 2, abs=1e-2)


def test_a_dominant_model_ranks_first_with_an_interval_around_its_rating() -> None:
    comparisons = []
    for seed in range(12):
        comparisons += [
            Game("top", "mid", "a", f"s{seed}"),
            Game("mid", "top", "b", f"s{seed}"),
            Game("top", "low", "a", f"s{seed}"),
            Game("mid", "low", "a" if seed % 3 else "tie", f"s{seed}"),
            Game("low", "mid", "b" if seed % 4 else "a", f"s{seed}"),
        ]
    models = ["low", "mid", "top"]
    fit = bradley_terry(comparisons, models, resamples=200, seed=1)
    ranked = [m for _, m in sorted(zip(fit.rating, models, strict=True), reverse=True)]
    assert ranked == ["top", "mid", "low"]
    for rating, low, high in zip(fit.rating, fit.lower, fit.upper, strict=True):
        assert low <= rating + 1e-6 <= high + 2e-6
    assert fit.clusters == 12
    assert fit.resamples == 200
    assert fit.win_probability[2][0] > 0.99  # top never lost: a finite, very high rating
    elo_ranked = sorted(bootstrap_elo(comparisons, models, rounds=50), key=lambda r: -r.elo)
    assert [r.model for r in elo_ranked] == ["top", "mid", "low"]


def test_a_model_that_never_plays_or_never_meets_the_others_is_an_error() -> None:
    with pytest.raises(DialbenchError, match=r"c never played a comparison"):
        bradley_terry([WIN], ["a", "b", "c"])
    with pytest.raises(DialbenchError, match=r"c never played a comparison"):
        bootstrap_elo([WIN], ["a", "b", "c"], rounds=5)
    apart = [WIN, Game("c", "d", "a")]
    with pytest.raises(DialbenchError, match=r"c, d never met a"):
        bradley_terry(apart, ["a", "b", "c", "d"])


def test_a_length_covariate_explains_wins_that_only_follow_length() -> None:
    """Whoever is shorter wins, and each model is shorter half the time: the plain fit sees
    two equal models, the covariate fit a strong negative β and still equal models; with no
    length effect, the covariate fit gives the plain fit's ratings and β = 0."""
    comparisons, difference = [], []
    for seed in range(20):
        shorter_a = seed % 2 == 0
        comparisons.append(Game("a", "b", "a" if shorter_a else "b", f"s{seed}"))
        difference.append(-1.0 if shorter_a else 1.0)
    fit = length_controlled(comparisons, difference, ["a", "b"], resamples=50)
    assert fit.beta < -5  # separable: only the tiny ridge keeps it finite
    assert fit.rating == pytest.approx([1000, 1000], abs=1e-3)
    assert fit.beta_lower <= fit.beta <= fit.beta_upper
    plain = [WIN, WIN, WIN, LOSS]
    same = length_controlled(plain, [0.0] * 4, ["a", "b"], resamples=10)
    assert same.beta == pytest.approx(0, abs=1e-6)
    assert same.rating[0] == pytest.approx(1095.4243, abs=1e-2)


def seeded_comparisons() -> list[Game]:
    """36 comparisons on 9 ChatSEEDs; c plays on two of them only, so some draws leave it out."""
    rng = random.Random(7)
    strength = {"a": 2.0, "b": 1.0, "c": 0.0}
    comparisons = []
    for seed in range(9):
        for _ in range(4):
            x, y = rng.sample(["a", "b", "c"] if seed < 2 else ["a", "b"], 2)
            u = rng.random()
            beats = 0.15 + 0.85 / (1 + 2.718 ** (strength[y] - strength[x]))
            outcome: Outcome = "tie" if u < 0.15 else "a" if u < beats else "b"
            comparisons.append(Game(x, y, outcome, f"s{seed}"))
    return comparisons


def test_ratings_and_intervals_are_the_pinned_figures() -> None:
    """The figures of fixed comparisons and seeds, pinned: a change to how draws, intervals or
    fits are computed must show here, never pass unseen. Pinned to within how far other CPUs
    move them, not to the last bit: numpy picks its exp, log and power by CPU (AVX-512 or AVX2,
    one ULP apart on about 5% of inputs in numpy 2.4), OpenBLAS its kernels, and L-BFGS stops
    wherever those bits lead it."""
    comparisons, models = seeded_comparisons(), ["a", "b", "c"]
    shuffled = bootstrap_elo(comparisons, models, rounds=30, seeds=range(3))
    # ELO is 36 updates through np.power, then medians and means over rounds and seeds: no
    # drift seen between AVX-512 and AVX2 dispatch, but power is not bit-stable across CPUs.
    # 1e-12 relative is thousands of ULPs; the spread across seeds gets as much in ELO points.
    assert [r.elo for r in shuffled] == pytest.approx(
        [1122.6828035405324, 910.7236267861085, 966.7950795003553], rel=1e-12
    )
    assert [r.std_across_seeds for r in shuffled] == pytest.approx(
        [4.231103544329467, 3.470860570983876, 0.3766362067262103], abs=1e-9
    )
    bt = bradley_terry(comparisons, models, resamples=300, seed=5)
    assert (bt.clusters, bt.resamples) == (9, 275)  # counts of draws: exact
    # The fit on all comparisons converges to gtol 1e-10: it moved by 1.8e-12 relative
    # (1178.6911514989122 on AVX-512, 1178.6911514967658 with numpy on AVX2).
    assert_fit(
        bt,
        [1178.6911514989122, 944.8827681538042, 876.4260803472837],
        [1114.310859076192, 834.7576883503039, 820.5539234490673],
        [1243.2756553215677, 1016.3867467541064, 986.1289919741428],
    )
    difference = [((i * 37) % 11 - 5) / 3 for i in range(len(comparisons))]
    lc = length_controlled(comparisons, difference, models, resamples=200, seed=2)
    assert lc.resamples == 180
    assert_fit(
        lc,
        [1182.0672246114116, 945.1169515589221, 872.8158238296663],
        [1104.6809744924326, 817.9228390722706, 785.3176404439912],
        [1339.1695397252363, 1014.9625217135086, 995.9268158398112],
    )
    assert lc.beta == pytest.approx(-0.1151124387582206, rel=POINT)
    assert (lc.beta_lower, lc.beta_upper) == pytest.approx(
        (-1.5675651130363115, 0.5574370689303643), rel=END
    )


# How far the pinned fits may move between machines: 500 and 45 times the most they moved when
# numpy's AVX-512 kernels were swapped for AVX2 (NPY_DISABLE_CPU_FEATURES) and OpenBLAS's for
# Haswell or Prescott ones (OPENBLAS_CORETYPE); still tight enough that doubling the ridge
# (2.5e-7 on ratings and ends), another seed or another interval method fails.
POINT, END = 1e-9, 1e-7


def assert_fit(
    fit: BradleyTerry | LengthControlled,
    rating: list[float],
    lower: list[float],
    upper: list[float],
) -> None:
    """A fit's ratings to within POINT, its interval's ends to within END: an end is one
    resample's fit, and a resample in which a model wins nearly everything leaves L-BFGS a
    flat likelihood (ends moved by up to 2.2e-9 relative)."""
    assert fit.rating == pytest.approx(rating, rel=POINT)
    assert [*fit.lower, *fit.upper] == pytest.approx([*lower, *upper], rel=END)
