"""Observations frames from arrays, as `figures/observations.py` makes them from a run."""

from __future__ import annotations

import numpy as np
import pandas as pd


def observations(
    values: dict[str, np.ndarray],
    *,
    dimension: str = "issues.repetitive",
    better: str = "lower",
    scale: tuple[float, float] = (0.0, 1.0),
    language: str = "en",
) -> pd.DataFrame:
    """`values[chatbot][seed, item]`: one observation each, the seed its unit."""
    rows = [
        {
            "protocol": "issues",
            "judge": "judge",
            "dimension": dimension,
            "better": better,
            "lowest": scale[0],
            "highest": scale[1],
            "chatbot": chatbot,
            "language": language,
            "unit": f"{language}:seed{seed}",
            "item": f"{language}:seed{seed}:{item}",
            "value": float(value),
        }
        for chatbot, table in values.items()
        for (seed, item), value in np.ndenumerate(table)
    ]
    return pd.DataFrame(rows)
