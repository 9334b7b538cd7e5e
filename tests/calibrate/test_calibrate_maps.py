"""The maps a calibration fits: isotonic onto the mean human value (scikit-learn's, applied from
its points alone), and a threshold chosen for F1 or for the humans' base rate, on the side the
positives lean to; and the folds the cross-validation deals dialogues into."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.isotonic import IsotonicRegression

from dialbench.calibrate.config import IsotonicMap, ThresholdMap
from dialbench.calibrate.folds import MIN_TRAINING_ITEMS, dialogue_folds, out_of_fold
from dialbench.calibrate.isotonic import apply_isotonic, fit_isotonic
from dialbench.calibrate.thresholds import apply_threshold, fit_threshold, soft_f1


def test_isotonic_is_scikit_learns_map_clipped_at_both_ends() -> None:
    rng = np.random.default_rng(0)
    judge = rng.uniform(1, 5, 200)
    human = np.clip((judge - 1) ** 2 / 8 + rng.normal(0, 0.2, 200), 0, 2)
    fitted = fit_isotonic(judge, human)
    assert fitted.increasing
    assert fitted.judge_values == sorted(fitted.judge_values)
    assert np.all(np.diff(fitted.human_values) >= 0)
    new = np.array([-3.0, 1.0, 2.2, 3.7, 4.9, 9.0])
    reference = IsotonicRegression(out_of_bounds="clip").fit(judge, human).predict(new)
    assert apply_isotonic(fitted, new) == pytest.approx(reference)
    assert apply_isotonic(fitted, np.array([-3.0]))[0] == fitted.human_values[0]
    assert apply_isotonic(fitted, np.array([9.0]))[0] == fitted.human_values[-1]


def test_isotonic_turns_down_for_a_judge_that_rates_the_other_way() -> None:
    judge = np.arange(10, dtype=float)
    fitted = fit_isotonic(judge, 9 - judge)
    assert not fitted.increasing
    assert apply_isotonic(fitted, np.array([2.0, 7.0])) == pytest.approx([7.0, 2.0])


def test_a_judge_answering_one_value_maps_to_the_humans_mean() -> None:
    fitted = fit_isotonic(np.full(6, 3.0), np.array([0, 1, 2, 2, 1, 0], dtype=float))
    assert apply_isotonic(fitted, np.array([1.0, 3.0, 5.0])) == pytest.approx([1.0, 1.0, 1.0])


def test_an_isotonic_map_of_unequal_or_unsorted_points_is_refused() -> None:
    with pytest.raises(ValueError, match="differ in length"):
        IsotonicMap(judge_values=[1, 2], human_values=[0], increasing=True)
    with pytest.raises(ValueError, match="ascending"):
        IsotonicMap(judge_values=[2, 1], human_values=[0, 1], increasing=True)


def test_soft_f1_counts_each_item_as_its_share_of_positive_annotators() -> None:
    """Shares .9, .2, .6 and the first two called positive: TP .9+.2, FP .1+.8, FN .6 ->
    F1 2.2 / (2.2 + .9 + .6)."""
    predicted = np.array([[True], [True], [False]])
    assert soft_f1(predicted, np.array([0.9, 0.2, 0.6]))[0] == pytest.approx(2.2 / 3.7)


def test_the_f1_threshold_is_the_midpoint_that_separates_the_classes() -> None:
    """Low sensibleness is a breakdown: positives at 1 and 2, negatives at 3.5 and above."""
    judge = np.array([1.0, 2.0, 3.5, 4.0, 5.0])
    share = np.array([1.0, 1.0, 0.0, 0.0, 0.0])
    fitted = fit_threshold(judge, share, "f1")
    assert fitted == ThresholdMap(threshold=2.75, positive_at="most", rule="f1")
    assert list(apply_threshold(fitted, np.array([0.0, 2.75, 2.8, 9.0]))) == [1, 1, 0, 0]


def test_the_side_leans_to_the_positives_unless_a_detect_threshold_states_it() -> None:
    judge = np.array([0.1, 0.2, 0.8, 0.9])
    share = np.array([0.0, 0.0, 1.0, 1.0])
    fitted = fit_threshold(judge, share, "f1")
    assert isinstance(fitted, ThresholdMap)
    assert (fitted.positive_at, fitted.threshold) == ("least", pytest.approx(0.5))
    stated = fit_threshold(judge, share, "f1", side="most")
    assert isinstance(stated, ThresholdMap)
    assert stated.positive_at == "most"


def test_the_base_rate_threshold_calls_as_many_positive_as_the_humans_do() -> None:
    """The humans call 30% positive, their shares spread over the judge's values: the base-rate
    threshold calls three of ten items positive, where F1 calls more."""
    judge = np.arange(10, dtype=float)
    share = np.array([0.0, 0.1, 0.2, 0.2, 0.3, 0.3, 0.4, 0.5, 0.5, 0.5])
    by_rate = fit_threshold(judge, share, "base-rate")
    by_f1 = fit_threshold(judge, share, "f1")
    assert isinstance(by_rate, ThresholdMap)
    assert isinstance(by_f1, ThresholdMap)
    assert (by_rate.positive_at, by_rate.rule) == ("least", "base-rate")
    assert apply_threshold(by_rate, judge).sum() == 3
    assert apply_threshold(by_f1, judge).sum() > 3


def test_a_threshold_needs_both_classes() -> None:
    assert "one class" in str(fit_threshold(np.arange(4.0), np.zeros(4), "f1"))
    assert "one class" in str(fit_threshold(np.arange(4.0), np.ones(4), "base-rate"))


def test_folds_deal_dialogues_by_their_hash_whatever_their_order() -> None:
    names = [f"dialogue-{i}" for i in range(23)]
    folds = dialogue_folds(names, 5)
    assert dialogue_folds(list(reversed(names)) * 3, 5) == folds
    sizes = np.bincount(list(folds.values()))
    assert sorted(sizes) == [4, 4, 5, 5, 5]
    assert dialogue_folds(names[:2], 5).keys() == {"dialogue-0", "dialogue-1"}
    assert set(dialogue_folds(names[:2], 5).values()) == {0, 1}, "two dialogues, two folds"


def test_out_of_fold_values_never_come_from_a_map_fitted_on_their_dialogue() -> None:
    """Each item's value is the set of dialogues its map was fitted on: never its own."""
    clusters = [f"d{i // 4}" for i in range(40)]
    x = np.arange(40, dtype=float)
    trained_on: list[set[str]] = []

    def fit_predict(train: np.ndarray, _: np.ndarray, held_out: np.ndarray) -> np.ndarray:
        trained_on.append({clusters[int(i)] for i in train})
        return np.full(len(held_out), len(trained_on) - 1, dtype=float)

    values = out_of_fold(clusters, x, x, 5, fit_predict)
    assert not isinstance(values, str)
    for i, fold in enumerate(values):
        assert clusters[i] not in trained_on[int(fold)]
    assert len(trained_on) == 5


def test_out_of_fold_says_why_it_cannot_cross_validate() -> None:
    def never(_: np.ndarray, __: np.ndarray, held_out: np.ndarray) -> np.ndarray:
        return held_out

    assert "cross-validation needs two" in str(
        out_of_fold(["d"] * 9, np.ones(9), np.ones(9), 5, never)
    )
    few = ["a"] * (MIN_TRAINING_ITEMS - 1) + ["b"] * 20
    assert "fitting needs" in str(out_of_fold(few, np.ones(len(few)), np.ones(len(few)), 2, never))
