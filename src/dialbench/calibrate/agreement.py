"""Raw against calibrated, on the same labelled items and the same resamples of their dialogues:
metaeval's figures (weighted Pearson with the mean human value; F1 of the positive class against
each annotator, averaged) and its bootstrap over dialogues, so the two read as metaeval shows
them, and the gain, calibrated minus raw, gets an interval of its own from the paired resamples.
The calibrated values are out of fold: an item is never scored by a map fitted on it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from dialbench.calibrate.config import Figure
from dialbench.metaeval.detection import resampled_f1
from dialbench.metaeval.inference import Inference, infer, observed_and_resampled
from dialbench.metaeval.weighted import pearson
from dialbench.resampling import ClusterResamples


@dataclass(frozen=True)
class Compared:
    raw: Figure
    calibrated: Figure
    gain: Figure
    n_dialogues: int
    note: str | None
    raw_error: float | None = None
    calibrated_error: float | None = None


def _figure(found: Inference) -> Figure:
    return Figure(value=found.value, low=found.low, high=found.high)


def _compare(
    raw: np.ndarray | None, calibrated: np.ndarray, n_clusters: int, why_no_raw: str | None
) -> tuple[Figure, Figure, Figure, str | None]:
    """Figures from each side's observed-then-resampled values (NaN where undefined)."""
    found = infer(calibrated, n_clusters, test_zero=False)
    if raw is None:
        return Figure(), _figure(found), Figure(), "; ".join(filter(None, [why_no_raw, found.note]))
    gain = infer(calibrated - raw, n_clusters, test_zero=False)
    raw_found = infer(raw, n_clusters, test_zero=False)
    return _figure(raw_found), _figure(found), _figure(gain), found.note or raw_found.note


def _rmse(values: np.ndarray, target: np.ndarray) -> float:
    return float(np.sqrt(np.mean((values - target) ** 2)))


def numeric_agreement(
    raw: np.ndarray,
    calibrated: np.ndarray,
    human_mean: np.ndarray,
    clusters: pd.Series,
    resamples: int,
    seed: int,
) -> Compared:
    """Pearson of each with the mean human value, and each one's distance to it."""
    drawn = ClusterResamples.draw(clusters, resamples, seed)
    weights = observed_and_resampled(drawn)
    raw_r, calibrated_r = (
        pearson(raw, human_mean, weights),
        pearson(calibrated, human_mean, weights),
    )
    figures = _compare(raw_r, calibrated_r, drawn.n_clusters, None)
    return Compared(
        *figures[:3],
        n_dialogues=drawn.n_clusters,
        note=figures[3],
        raw_error=_rmse(raw, human_mean),
        calibrated_error=_rmse(calibrated, human_mean),
    )


def detection_agreement(
    raw: np.ndarray | None,
    calibrated: np.ndarray,
    humans: pd.DataFrame,
    clusters: pd.Series,
    resamples: int,
    seed: int,
) -> Compared:
    """F1 of the positive class of each against every annotator (items x annotators of 1, 0 or
    NaN), averaged; `raw` None where the judge's own answers are no decision (numbers with no
    `--detect` threshold)."""
    drawn = ClusterResamples.draw(clusters, resamples, seed)
    weights = observed_and_resampled(drawn)
    labels = humans.to_numpy(float)

    def f1(decisions: np.ndarray) -> np.ndarray:
        return resampled_f1(decisions[:, None], labels, weights, False)

    why = "raw: the judge answers in numbers; --detect DIM=LABEL:judge<=N scores them as decisions"
    figures = _compare(None if raw is None else f1(raw), f1(calibrated), drawn.n_clusters, why)
    return Compared(*figures[:3], n_dialogues=drawn.n_clusters, note=figures[3])
