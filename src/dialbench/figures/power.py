"""How many seeds a difference between two chatbots needs, before the run: the test is the one
`differences.py` makes (Student's t on the per-seed differences, two-sided), so its power is a
one-sample t test's power on those differences (statsmodels' `TTestPower`).

What a plan needs besides the seeds is the spread of one seed's difference. A pilot run gives
it (`pilot_spreads`: the per-seed differences between its chatbots, pooled over pairs). Without
one, a figure that is a rate gives a bound: a seed's difference of two chatbots that each judge
`items` items at rate p independently has sd sqrt(2 p (1 - p) / items); chatbots that agree on
a seed (a hard seed is hard for both) differ less, so the bound is conservative.
"""

from __future__ import annotations

import functools
import math
from itertools import combinations

import numpy as np
import pandas as pd
from pydantic import Field

from dialbench.figures.family import ALPHA
from dialbench.figures.frame import with_all_languages
from dialbench.schema import Record

POWER = 0.8
SPREAD_KEYS = ["protocol", "dimension", "language"]


class Detectable(Record):
    """The smallest difference `seeds` seeds detect `power` of the time at `alpha`."""

    seeds: int
    sd: float = Field(description="sd of one seed's difference between the two chatbots")
    alpha: float = ALPHA
    power: float = POWER
    difference: float | None = Field(description="None below two seeds: no test")


class SeedsNeeded(Record):
    """How many seeds detect `difference` `power` of the time at `alpha`."""

    difference: float
    sd: float
    alpha: float = ALPHA
    power: float = POWER
    seeds: int


class PilotSpread(Record):
    """The sd of one seed's difference between two chatbots in a pilot run, pooled over every
    pair of its chatbots (and judges) that share seeds."""

    protocol: str
    dimension: str
    language: str
    sd: float
    pairs: int
    seeds: int = Field(description="per-seed differences pooled, over all pairs")


def scalar(solved: object) -> float:
    """statsmodels' solver answers a number or a one-element array, by the path it took."""
    return float(np.ravel(np.asarray(solved, dtype=float))[0])


def rate_sd(base_rate: float, items: int = 1) -> float:
    """The sd of one seed's difference of two chatbots' rates, each the mean of `items`
    independent items at `base_rate`: conservative when the chatbots agree on a seed."""
    if not 0 < base_rate < 1:
        raise ValueError(f"a base rate is between 0 and 1, not {base_rate}")
    if items < 1:
        raise ValueError(f"a seed has at least one item, not {items}")
    return math.sqrt(2 * base_rate * (1 - base_rate) / items)


@functools.lru_cache(maxsize=256)
def detectable_effect(seeds: int, alpha: float = ALPHA, power: float = POWER) -> float:
    """The smallest standardised difference (in sds of one seed's difference) the paired t test
    on `seeds` seeds detects with `power`: one root-finding per number of seeds, however many
    figures ask."""
    from statsmodels.stats.power import TTestPower

    return scalar(
        TTestPower().solve_power(nobs=seeds, alpha=alpha, power=power, alternative="two-sided")
    )


def detectable_difference(
    seeds: int, sd: float, alpha: float = ALPHA, power: float = POWER
) -> Detectable:
    """The smallest true difference the paired t test on `seeds` seeds detects with `power`."""
    difference = detectable_effect(seeds, alpha, power) * sd if seeds >= 2 else None
    return Detectable(seeds=seeds, sd=sd, alpha=alpha, power=power, difference=difference)


def power_of(difference: float, seeds: int, sd: float, alpha: float = ALPHA) -> float:
    """How often the paired t test on `seeds` seeds detects a true `difference`."""
    from statsmodels.stats.power import TTestPower

    return scalar(
        TTestPower().power(
            effect_size=difference / sd, nobs=seeds, alpha=alpha, alternative="two-sided"
        )
    )


def seeds_needed(
    difference: float, sd: float, alpha: float = ALPHA, power: float = POWER
) -> SeedsNeeded:
    """The fewest seeds whose paired t test detects `difference` with `power`."""
    from statsmodels.stats.power import TTestPower

    if difference <= 0 or sd <= 0:
        raise ValueError("a difference and a spread are positive")
    nobs = TTestPower().solve_power(
        effect_size=difference / sd, alpha=alpha, power=power, alternative="two-sided"
    )
    return SeedsNeeded(
        difference=difference,
        sd=sd,
        alpha=alpha,
        power=power,
        seeds=max(2, math.ceil(scalar(nobs))),
    )


def pilot_spreads(observations: pd.DataFrame) -> list[PilotSpread]:
    """Per protocol, dimension and language (and "all"): the sd of the per-seed differences
    between the pilot's chatbots, each seed's mean per chatbot as `differences.py` takes it,
    the variances of every pair (and judge) pooled by their degrees of freedom."""
    found = []
    for key, part in with_all_languages(observations).groupby(SPREAD_KEYS, sort=True):
        means = part.groupby(["judge", "chatbot", "unit"])["value"].mean()
        squares, freedom, pairs, seeds = 0.0, 0, 0, 0
        for _judge, of_judge in means.groupby(level="judge"):
            by_chatbot = of_judge.droplevel("judge")
            chatbots = sorted(set(by_chatbot.index.get_level_values("chatbot")))
            for first, second in combinations(chatbots, 2):
                d = (by_chatbot[first] - by_chatbot[second]).dropna().to_numpy(dtype=float)
                if len(d) < 2:
                    continue
                squares += float(np.sum((d - d.mean()) ** 2))
                freedom += len(d) - 1
                pairs += 1
                seeds += len(d)
        if freedom:
            protocol, dimension, language = (str(part) for part in key)
            found.append(
                PilotSpread(
                    protocol=protocol,
                    dimension=dimension,
                    language=language,
                    sd=math.sqrt(squares / freedom),
                    pairs=pairs,
                    seeds=seeds,
                )
            )
    return found
