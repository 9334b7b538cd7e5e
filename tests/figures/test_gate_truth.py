"""The gate on planted truths: a candidate much worse on shared seeds is a regression; the
same chatbot twice is not."""

from __future__ import annotations

import numpy as np
import pandas as pd

from dialbench.figures.differences import chatbot_differences
from dialbench.figures.gate import GateConfig, GateRule, gate
from tests.figures.observed import observations


def runs(shift: float, seed: int = 0) -> pd.DataFrame:
    """A baseline and a candidate on 40 shared seeds of two languages, the candidate's issue
    rate `shift` higher in German."""
    rng = np.random.default_rng(seed)
    parts = []
    for language in ("en", "de"):
        rate = rng.beta(2, 6, size=(40, 1))
        baseline = rng.random((40, 2)) < rate
        worse = shift if language == "de" else 0.0
        candidate = rng.random((40, 2)) < np.clip(rate + worse, 0, 1)
        parts.append(
            observations({"candidate": candidate, "baseline": baseline}, language=language)
        )
    return pd.concat(parts, ignore_index=True)


def checked(shift: float, config: GateConfig) -> pd.DataFrame:
    differences = chatbot_differences(runs(shift), pairs=[("candidate", "baseline")])
    return gate(differences, config)


def test_a_planted_regression_is_flagged_where_it_is() -> None:
    found = checked(0.4, GateConfig())
    flagged = found[found["regression"]]
    assert "de" in set(flagged["language"])
    assert "en" not in set(flagged["language"])


def test_the_same_chatbot_twice_is_no_regression() -> None:
    found = checked(0.0, GateConfig())
    assert len(found) == 3  # en, de and all
    assert not found["regression"].any()


def test_a_margin_forgives_a_difference_within_it() -> None:
    lenient = GateConfig(rules=[GateRule(margin=0.9)])
    assert not checked(0.4, lenient)["regression"].any()
