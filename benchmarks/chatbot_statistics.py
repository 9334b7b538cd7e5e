"""The chatbot statistics against a known truth, and the seeds a claim needs.

`check`: many simulated pairs of runs (a candidate and a baseline chatbot on the same seeds)
with known issue rates and a known 1-5 score, through the project's own `chatbot_intervals`,
`chatbot_differences` and `gate`. Each seed has a difficulty shared by both chatbots
(logit-normal: a seed's rate is logistic(logit(rate) + language shift + sd * z), z shared in
part across dimensions), so the seeds are the units and pairing matters. Prints, per number of
seeds per language: coverage of the 95% figure intervals and of the 95% difference intervals,
the gate's false-alarm rate with no true difference (any regression over every dimension and
language, "all" too), and its power at planted differences (in one issue rate of one language)
beside what `figures/power.py` predicts for it; each with its Monte-Carlo standard error over
the simulations.

`seeds`: the seeds per language a paired difference of a rate needs (80% power, alpha = 0.05,
one item per seed per chatbot), from `figures/power.py`, for the docs' table.

Usage: python benchmarks/chatbot_statistics.py check [--simulations N] [--seeds 20 50]
       python benchmarks/chatbot_statistics.py seeds
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import optimize
from scipy.special import expit, logit

from dialbench.figures.differences import chatbot_differences
from dialbench.figures.family import ALPHA
from dialbench.figures.gate import GateConfig, gate
from dialbench.figures.intervals import chatbot_intervals
from dialbench.figures.power import power_of, rate_sd, seeds_needed
from dialbench.schema import ALL_LANGUAGES


@dataclass(frozen=True)
class Dimension:
    """A figure whose items are `floor` + Binomial(`steps`, a seed's rate): an issue (one
    step: flagged or not), or a 1-5 score (1 + 4 steps)."""

    base: float  # the rate at a seed of average difficulty in a language without shift
    steps: int = 1
    floor: float = 0.0
    better: str = "lower"

    def label(self) -> str:
        if self.steps == 1:
            return f"issue rate {self.base:.0%}"
        return f"score {self.floor:.0f}-{self.floor + self.steps:.0f}"


DIMENSIONS = {
    "issues.a": Dimension(0.05),
    "issues.b": Dimension(0.1),
    "issues.c": Dimension(0.2),
    "issues.d": Dimension(0.4),
    "overall": Dimension(0.6, steps=4, floor=1, better="higher"),
}
LANGUAGES = {"en": -0.3, "zh": 0.0, "de": 0.3}  # logit shifts
SEED_SD = 1.0  # of a seed's difficulty on the logit scale
SHARED = 0.5  # share of a seed's difficulty common to its dimensions
PLANTED = ("issues.c", "en")  # where the candidate is worse, when it is
CANDIDATE, BASELINE = "candidate", "baseline"
NODES, WEIGHTS = np.polynomial.hermite_e.hermegauss(80)
WEIGHTS = WEIGHTS / WEIGHTS.sum()  # E[f(z)], z ~ N(0, 1), as a weighted sum


def expected(center: float) -> float:
    """The true rate: a seed's rate averaged over seeds."""
    return float(WEIGHTS @ expit(center + SEED_SD * NODES))


def logit_center(dimension: str, language: str) -> float:
    return float(logit(DIMENSIONS[dimension].base) + LANGUAGES[language])


def true_value(dimension: str, center: float) -> float:
    found = DIMENSIONS[dimension]
    return found.floor + found.steps * expected(center)


def planted_shift(difference: float) -> float:
    """The candidate's logit shift that makes its true rate `difference` higher in PLANTED."""
    dimension, language = PLANTED
    center = logit_center(dimension, language)
    target = expected(center) + difference
    return float(optimize.brentq(lambda shift: expected(center + shift) - target, 0, 5))


@dataclass(frozen=True)
class Scenario:
    seeds: int
    items: int
    shift: float  # the candidate's logit shift in PLANTED's dimension and language

    def truth(self) -> pd.DataFrame:
        """Each chatbot's true rate per dimension and language (and "all": languages weigh
        alike, having as many seeds), and the true difference candidate − baseline."""
        rows = []
        for dimension in DIMENSIONS:
            for language in LANGUAGES:
                center = logit_center(dimension, language)
                shift = self.shift if (dimension, language) == PLANTED else 0.0
                base = true_value(dimension, center)
                cand = true_value(dimension, center + shift)
                rows.append((dimension, language, cand, base))
        truth = pd.DataFrame(rows, columns=["dimension", "language", CANDIDATE, BASELINE])
        overall = truth.groupby("dimension", as_index=False)[[CANDIDATE, BASELINE]].mean()
        truth = pd.concat([truth, overall.assign(language=ALL_LANGUAGES)], ignore_index=True)
        return truth.assign(difference=truth[CANDIDATE] - truth[BASELINE])

    def difference_sd(self) -> float:
        """The true sd of one seed's difference in PLANTED's cell, by quadrature over the
        seed's difficulty."""
        dimension, language = PLANTED
        base = expit(logit_center(dimension, language) + SEED_SD * NODES)
        cand = expit(logit_center(dimension, language) + self.shift + SEED_SD * NODES)
        within = WEIGHTS @ (cand * (1 - cand) + base * (1 - base)) / self.items
        gap = cand - base
        between = WEIGHTS @ gap**2 - (WEIGHTS @ gap) ** 2
        return float(np.sqrt(within + between))

    def observations(self, simulations: int, rng: np.random.Generator) -> pd.DataFrame:
        """Every simulated pair of runs as one observations frame, the simulation as judge."""
        n_dims, n_langs = len(DIMENSIONS), len(LANGUAGES)
        shape = (simulations, n_langs, self.seeds)
        common = rng.standard_normal(shape)[..., None]
        own = rng.standard_normal((*shape, n_dims))
        z = np.sqrt(SHARED) * common + np.sqrt(1 - SHARED) * own  # sim, language, seed, dim
        centers = (
            logit(np.array([d.base for d in DIMENSIONS.values()]))[None, :]
            + np.array(list(LANGUAGES.values()))[:, None]
        )
        base = expit(centers[None, :, None, :] + SEED_SD * z)
        shift = np.zeros((n_langs, n_dims))
        dimension, language = PLANTED
        shift[list(LANGUAGES).index(language), list(DIMENSIONS).index(dimension)] = self.shift
        cand = expit(centers[None, :, None, :] + shift[None, :, None, :] + SEED_SD * z)
        rates = np.stack([cand, base])  # chatbot, sim, language, seed, dim
        steps = np.array([d.steps for d in DIMENSIONS.values()])
        floors = np.array([d.floor for d in DIMENSIONS.values()])
        drawn = rng.binomial(
            steps, np.broadcast_to(rates[..., None, :], (*rates.shape[:4], self.items, n_dims))
        )
        values = floors + drawn
        index = pd.MultiIndex.from_product(
            [
                [CANDIDATE, BASELINE],
                [f"sim{i}" for i in range(simulations)],
                list(LANGUAGES),
                range(self.seeds),
                range(self.items),
                list(DIMENSIONS),
            ],
            names=["chatbot", "judge", "language", "seed", "item", "dimension"],
        )
        frame = pd.DataFrame({"value": values.ravel().astype(float)}, index=index).reset_index()
        unit = frame["language"] + ":" + frame["seed"].astype(str)
        return frame.assign(
            protocol="issues",
            better=frame["dimension"].map({name: d.better for name, d in DIMENSIONS.items()}),
            lowest=frame["dimension"].map({name: d.floor for name, d in DIMENSIONS.items()}),
            highest=frame["dimension"].map(
                {name: d.floor + d.steps for name, d in DIMENSIONS.items()}
            ),
            unit=unit,
            item=unit + ":" + frame["item"].astype(str),
        )


def share(hits: pd.Series, simulation: pd.Series) -> str:
    """A share with its Monte-Carlo standard error over the simulations (the rows of one
    simulation are not independent of each other)."""
    per_simulation = hits.astype(float).groupby(simulation.to_numpy()).mean()
    error = per_simulation.std(ddof=1) / np.sqrt(len(per_simulation))
    return f"{per_simulation.mean():6.1%} ± {error:.1%}"


def coverage(table: pd.DataFrame, rows: pd.Series | None = None) -> str:
    """How often the rows' intervals hold their `true` value."""
    chosen = table if rows is None else table[rows]
    hits = (chosen["low"] <= chosen["true"]) & (chosen["true"] <= chosen["high"])
    return share(hits, chosen["judge"])


def line(label: str, figure: str) -> None:
    print(f"  {label:52s} {figure}")


def check(
    seeds: int,
    items: int,
    simulations: int,
    planted: list[float],
    rng: np.random.Generator,
) -> None:
    family = len(DIMENSIONS) * (len(LANGUAGES) + 1)
    null = Scenario(seeds, items, 0.0)
    started = time.perf_counter()
    observed = null.observations(simulations, rng)
    truth = null.truth().melt(
        ["dimension", "language", "difference"], [CANDIDATE, BASELINE], "chatbot", "true"
    )
    intervals = chatbot_intervals(observed).merge(truth, on=["dimension", "language", "chatbot"])
    one_language = intervals["language"] != ALL_LANGUAGES
    print(
        f"{seeds} seeds per language, {items} item(s) per seed per chatbot, {len(LANGUAGES)} "
        f"languages, {len(DIMENSIONS)} dimensions, {simulations} simulated pairs of runs"
    )
    line(
        "95% figure intervals hold the true value, per language", coverage(intervals, one_language)
    )
    for dimension, described in DIMENSIONS.items():
        of_dimension = one_language & (intervals["dimension"] == dimension)
        line(f"  {described.label()}", coverage(intervals, of_dimension))
    line("  all languages together", coverage(intervals, ~one_language))
    for difference in [0.0, *planted]:
        scenario = Scenario(seeds, items, planted_shift(difference)) if difference else null
        if difference:
            observed = scenario.observations(simulations, rng)
        differences = chatbot_differences(observed, pairs=[(CANDIDATE, BASELINE)]).merge(
            scenario.truth()[["dimension", "language", "difference"]].rename(
                columns={"difference": "true"}
            ),
            on=["dimension", "language"],
        )
        checked = pd.concat(
            [gate(part, GateConfig()) for _, part in differences.groupby("judge", sort=False)]
        )
        if not difference:
            line("95% difference intervals hold the true 0", coverage(differences))
            flagged = checked.groupby("judge")["regression"].any()
            line(f"gate false alarms (any of {family} rows flagged)", share(flagged, flagged.index))
            continue
        dimension, language = PLANTED
        described = DIMENSIONS[dimension].label()
        print(f"  +{difference * 100:.0f} points in {dimension} ({described}) in {language}:")
        line("  95% difference intervals hold the truth", coverage(differences))
        hit = checked[(checked["dimension"] == dimension) & (checked["language"] == language)]
        sd = scenario.difference_sd()
        predicted = power_of(difference, seeds, sd, ALPHA / family)
        line(
            "  gate flags it",
            f"{share(hit['regression'], hit['judge'])} (power.py at alpha {ALPHA}/{family}, "
            f"sd {sd:.2f}: {predicted:.1%})",
        )
        others = checked[checked["true"] == 0]
        flagged = others.groupby("judge")["regression"].any()
        line("  gate flags a row with no true difference", share(flagged, flagged.index))
    print(f"  ({time.perf_counter() - started:.0f} s)")


def seeds_table(items: int, family: int) -> None:
    """Seeds per language for a paired difference of a rate (chatbots independent on a seed:
    conservative), at alpha 0.05 over a family of `family` comparisons (Bonferroni: Holm's
    first step)."""
    rates, differences = (0.1, 0.2, 0.4), (0.03, 0.05, 0.10)
    alpha = ALPHA / family
    print(
        f"seeds per language: 80% power, two-sided paired t at alpha {alpha:.3g}"
        f"{f' (0.05 / {family})' if family > 1 else ''}, {items} item(s) per seed per chatbot"
    )
    print("base rate    sd  " + "".join(f"{d * 100:>4.0f} points" for d in differences))
    for rate in rates:
        sd = rate_sd(rate, items)
        needed = [seeds_needed(d, sd, alpha).seeds for d in differences]
        print(f"{rate:9.0%}  {sd:.2f}  " + "".join(f"{n:>11,}" for n in needed))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    checking = commands.add_parser("check", help="the statistics against a known truth")
    checking.add_argument("--simulations", type=int, default=500)
    checking.add_argument("--seeds", type=int, nargs="+", default=[20, 50])
    checking.add_argument("--items", type=int, default=1, help="items per seed per chatbot")
    checking.add_argument(
        "--differences",
        type=float,
        nargs="+",
        default=[0.1, 0.3],
        help="true differences planted in one dimension of one language",
    )
    checking.add_argument("--random-seed", type=int, default=0)
    planning = commands.add_parser("seeds", help="seeds per language a difference needs")
    planning.add_argument("--items", type=int, default=1, help="items per seed per chatbot")
    planning.add_argument(
        "--family", type=int, default=1, help="comparisons the gate corrects over"
    )
    args = parser.parse_args()
    if args.command == "seeds":
        seeds_table(args.items, args.family)
        return
    rng = np.random.default_rng(args.random_seed)
    for seeds in args.seeds:
        check(seeds, args.items, args.simulations, args.differences, rng)


if __name__ == "__main__":
    main()
