"""Which figures a comparison is computed on: the judge's labels taken as the truth (raw), or
those labels corrected by the human labels of a probability sample (`corrected.py`).

Light to import (the CLI's options name the bases); the statistics load when a table is made.
`auto`, the default, corrects wherever the run holds labels of a probability sample and a
figure's cells have enough of them, and keeps the raw comparison (saying so in its note) where
they have not: a gate that silently could not flag a row would be worse than one that reads it
raw. `corrected` corrects or, with no such labels, stops with the reason; `raw` ignores labels.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from dialbench.figures.family import ALPHA, Correction

if TYPE_CHECKING:
    import pandas as pd

Basis = Literal["auto", "raw", "corrected"]
BASES: dict[Basis, str] = {
    "auto": "corrected by the human labels of a probability sample where its cells have "
    "enough, else the judge's labels as they are",
    "raw": "the judge's labels taken as the truth",
    "corrected": "corrected by the human labels of a probability sample (an error without them)",
}
CORRECTED = "corrected by the human labels of a probability sample"
RAW_FALLBACK = "raw (too few human labels to correct: {why})"
MATCH = ["protocol", "judge", "dimension", "language", "first", "second"]


def has_labels(labelled: pd.DataFrame) -> bool:
    """Whether any observation is labelled: a human value and a sampling weight."""
    return bool((labelled["human"].notna() & labelled["weight"].notna()).any())


def differences_on(
    basis: Basis,
    observed: pd.DataFrame,
    labelled: pd.DataFrame,
    why_unlabelled: str,
    pairs: Sequence[tuple[str, str]] | None = None,
    correction: Correction = "holm",
    alpha: float = ALPHA,
) -> tuple[pd.DataFrame, str]:
    """The chatbots' differences on `basis`, corrected as one family, and a sentence saying
    what they were computed on. `labelled` is `observed` with the human value and weight of
    each labelled item (`labelled_observations`); `why_unlabelled` says why it has none."""
    import pandas as pd

    from dialbench.errors import DialbenchError
    from dialbench.figures.corrected import corrected_differences
    from dialbench.figures.differences import chatbot_differences
    from dialbench.figures.family import correct

    labels = has_labels(labelled)
    if basis == "corrected" and not labels:
        raise DialbenchError(f"--figures corrected: {why_unlabelled}")
    if basis == "raw" or not labels:
        said = "" if basis == "raw" else f" ({why_unlabelled})"
        return chatbot_differences(observed, pairs, correction, alpha), (
            f"figures: {BASES['raw']}{said}"
        )
    corrected = corrected_differences(labelled, pairs, correction, alpha)
    if basis == "corrected":
        return corrected, f"figures: {CORRECTED}"
    raw = chatbot_differences(observed, pairs, correction, alpha)
    untested = corrected[corrected["p_value"].isna() & (corrected["note"].fillna("") != "")]
    fallback = raw.merge(untested[[*MATCH, "note"]], on=MATCH, suffixes=("", "_corrected"))
    fallback["note"] = [
        RAW_FALLBACK.format(why=why or "no test") for why in fallback.pop("note_corrected")
    ]
    kept = corrected.drop(index=untested.index)
    together = pd.concat([kept, fallback[corrected.columns]], ignore_index=True)
    raw_rows = (
        f"; {len(fallback)} of {len(together)} rows raw, too few labels" if len(fallback) else ""
    )
    return correct(together, correction, alpha)[corrected.columns], (
        f"figures: {CORRECTED}{raw_rows}"
    )
