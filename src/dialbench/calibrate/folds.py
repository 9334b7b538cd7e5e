"""Folds over dialogues, and out-of-fold values: every labelled item is scored by a map fitted
without its dialogue.

Turns of one dialogue are not independent, so a fold holds whole dialogues (self-chats of one
ChatSEED together, the clusters metaeval's bootstrap resamples). Dialogues are put in the order
of the sha256 of their id and dealt to the folds in turn: the same dialogues always make the
same folds, whatever order the store gives them in, and each fold gets its share even when
there are only a few.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from dialbench.hashing import sha256_text

MIN_TRAINING_ITEMS = 5

# A map fitted on the training items' (x, y) and applied to the held-out x, or why it cannot be.
FitPredict = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray | str]


def dialogue_folds(clusters: Sequence[str], folds: int) -> dict[str, int]:
    """Each distinct cluster's fold, 0 to folds - 1."""
    ordered = sorted(set(clusters), key=lambda name: (sha256_text(name), name))
    return {name: i % folds for i, name in enumerate(ordered)}


def out_of_fold(
    clusters: Sequence[str],
    x: np.ndarray,
    y: np.ndarray,
    folds: int,
    fit_predict: FitPredict,
) -> np.ndarray | str:
    """Every item's value from a map fitted on the other folds; or why that cannot be done (too
    few dialogues, a training set too small, or the fit's own reason)."""
    fold_of = dialogue_folds(clusters, folds)
    fold = np.array([fold_of[c] for c in clusters])
    used = np.unique(fold)
    if len(used) < 2:
        return f"{len(fold_of)} labelled dialogue(s): cross-validation needs two"
    values = np.full(len(x), np.nan)
    for k in used:
        held_out = fold == k
        if (~held_out).sum() < MIN_TRAINING_ITEMS:
            return (
                f"{int((~held_out).sum())} labelled item(s) outside fold {k}: fitting needs "
                f"{MIN_TRAINING_ITEMS}"
            )
        predicted = fit_predict(x[~held_out], y[~held_out], x[held_out])
        if isinstance(predicted, str):
            return f"fold {k}: {predicted}"
        values[held_out] = predicted
    return values
