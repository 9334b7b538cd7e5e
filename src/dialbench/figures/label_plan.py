"""How many human labels a cell needs for a corrected figure's interval to be this wide.

Under PPI++ with its power-tuned λ the corrected mean's variance is about sd²(1 − ρ² N/(N + n))/n
for n labels among N judged items, ρ the judge–human correlation and sd the labels' spread:
a judge that tracks the humans (ρ near 1) leaves only the part of the labels' variance it does
not explain, an uninformative one (ρ = 0) leaves the labels alone. Solved for the smallest n
whose full 95% width 2·z·√variance is at most the target; None where even N labels (every item)
leave it wider: the seeds themselves vary, and more seeds, not more labels, narrow it.
The seeds' clustering widens real intervals (a design effect above 1): the plan is a floor.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from dialbench.resampling import LEVEL


def planned_width(
    labels: int, sd: float, correlation: float, population: int, level: float = LEVEL
) -> float:
    variance = sd**2 * (1 - correlation**2 * population / (population + labels)) / labels
    return float(2 * stats.norm.ppf((1 + level) / 2) * np.sqrt(max(variance, 0.0)))


def labels_needed(
    width: float, sd: float, correlation: float, population: int, level: float = LEVEL
) -> int | None:
    """The labels a cell of `population` judged items needs for a full interval `width`."""
    for labels in range(2, population + 1):
        if planned_width(labels, sd, correlation, population, level) <= width:
            return labels
    return None


def pilot_plan(labelled: pd.DataFrame, width: float, level: float = LEVEL) -> pd.DataFrame:
    """Per protocol, judge, dimension and language: the judge–human correlation and the labels'
    spread on a pilot's labelled items (`labelled_observations`), the judged items per chatbot,
    and the labels per chatbot the width needs (None: more than every item)."""
    keys = ["protocol", "judge", "dimension", "language"]
    rows = []
    labels = labelled[labelled["human"].notna() & labelled["weight"].notna()]
    for key, part in labels.groupby(keys, sort=True):
        if len(part) < 3 or part["human"].nunique() < 2 or part["value"].nunique() < 2:
            continue
        correlation = float(np.corrcoef(part["value"], part["human"])[0, 1])
        sd = float(part["human"].std())
        cells = labelled.merge(pd.DataFrame([key], columns=keys), on=keys)
        population = int(cells.groupby("chatbot")["item"].nunique().max())
        needed = labels_needed(width, sd, correlation, population, level)
        rows.append(
            {
                **dict(zip(keys, key, strict=True)),
                "pilot_labels": len(part),
                "correlation": correlation,
                "sd": sd,
                "population": population,
                "labels_needed": needed,
            }
        )
    return pd.DataFrame(rows)
