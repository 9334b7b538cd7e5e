"""Isotonic calibration of a judge's numbers: the monotone map from its value to the mean human
value that is closest in squared error (scikit-learn's pool-adjacent-violators), increasing or
decreasing as the training items' rank correlation says, linear between the fitted points and
clipped beyond them. Applying it needs no scikit-learn: the map is its points."""

from __future__ import annotations

import warnings

import numpy as np

from dialbench.calibrate.config import IsotonicMap


def fit_isotonic(judge: np.ndarray, human: np.ndarray) -> IsotonicMap:
    from sklearn.isotonic import IsotonicRegression

    regression = IsotonicRegression(increasing="auto", out_of_bounds="clip")
    with warnings.catch_warnings():
        # Its warnings (a constant input, a direction the rank correlation is unsure of) would
        # repeat for every fold; the cross-validated figures say what the map is worth.
        warnings.simplefilter("ignore")
        regression.fit(judge, human)
    return IsotonicMap(
        judge_values=[float(v) for v in regression.X_thresholds_],
        human_values=[float(v) for v in regression.y_thresholds_],
        increasing=bool(regression.increasing_),
    )


def apply_isotonic(fitted: IsotonicMap, judge: np.ndarray) -> np.ndarray:
    """The mapped values, as scikit-learn's `predict` gives them (clipped at both ends)."""
    return np.asarray(np.interp(judge, fitted.judge_values, fitted.human_values))
