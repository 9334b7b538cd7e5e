"""Figures corrected by human labels against a known truth (docs/corrected.md).

Simulated runs: two chatbots on the same seeds in en, zh and de, one dialogue each per seed, a
binary issue whose true rate is the chatbot's shifted by the seed's difficulty (logit-normal,
shared by both chatbots, so seeds are the units). A judge finds 80% of the issues and flags 10%
of the others, except in German, where it flags 30% (about 15 points too many) and Chinese,
where it finds 60% (about 5 too few). A stratified audit sample per language × chatbot draws
dialogues the judge flagged twice as likely (`curate.audit_sample.allocate`, π exact), and
humans label it with the truth. Each simulation is one "judge" of one frame, so the project's
own `chatbot_intervals`, `corrected_intervals`, `corrected_differences` and `gate` read them
all at once. The truth is the chatbot's expected rate over seeds (what an interval over seeds
is for), integrated numerically.

Prints, each with its Monte-Carlo standard error:
1. coverage of the raw (judge's) and corrected 95% intervals per chatbot × language and "all";
2. the corrected interval's mean width against the labels-only one, for this judge and for a
   judge that answers at random (no better than no judge);
3. the gate's false-alarm rate on corrected differences when both chatbots have the same truth
   (any regression among the rows of a simulation), and how often raw differences "hold" there.

Usage: python benchmarks/corrected_figures.py [--simulations N] [--seeds S] [--labels L]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from scipy.special import expit, logit

from dialbench.curate.audit_sample import allocate
from dialbench.figures.corrected import corrected_differences, corrected_intervals
from dialbench.figures.gate import GateConfig, gate
from dialbench.figures.intervals import chatbot_intervals
from dialbench.schema import ALL_LANGUAGES

LANGUAGES = ("en", "zh", "de")
SENSITIVITY = {"zh": 0.6}
FALSE_ALARMS = {"de": 0.3}
SEED_SD = 0.8
OVERSAMPLE = 2.0


def true_rate(rate: float) -> float:
    """The expected rate over seeds of logistic(logit(rate) + SEED_SD · z)."""
    z = np.linspace(-8, 8, 4001)
    density = np.exp(-(z**2) / 2)
    return float(np.sum(expit(logit(rate) + SEED_SD * z) * density) / np.sum(density))


def simulate(
    rates: dict[str, float], simulations: int, seeds: int, labels: int, noise: bool, rng
) -> pd.DataFrame:
    """Every simulation's observations with human labels and weights, one judge each."""
    parts = []
    for language in LANGUAGES:
        effect = rng.normal(0, SEED_SD, (simulations, seeds))
        for chatbot, rate in rates.items():
            truth = rng.random((simulations, seeds)) < expit(logit(rate) + effect)
            if noise:
                judged = rng.random((simulations, seeds)) < 0.3
            else:
                hit = SENSITIVITY.get(language, 0.8)
                alarm = FALSE_ALARMS.get(language, 0.1)
                judged = rng.random((simulations, seeds)) < np.where(truth, hit, alarm)
            weight = np.full((simulations, seeds), np.nan)
            for s in range(simulations):
                flagged, unflagged = np.flatnonzero(judged[s]), np.flatnonzero(~judged[s])
                drawn = allocate(labels, len(flagged), len(unflagged), OVERSAMPLE)
                for members, n in zip((flagged, unflagged), drawn, strict=True):
                    if n:
                        weight[s, rng.choice(members, n, replace=False)] = len(members) / n
            simulation = np.repeat(np.arange(simulations), seeds)
            seed = np.tile(np.arange(seeds), simulations)
            parts.append(
                pd.DataFrame(
                    {
                        "protocol": "issues",
                        "judge": simulation.astype(str),
                        "dimension": "issues.lacks_empathy",
                        "better": "lower",
                        "lowest": 0.0,
                        "highest": 1.0,
                        "chatbot": chatbot,
                        "language": language,
                        "unit": [f"{language}:{k}" for k in seed],
                        "item": [f"{language}:{chatbot}:{k}" for k in seed],
                        "value": judged.ravel().astype(float),
                        "human": np.where(np.isnan(weight), np.nan, truth).ravel(),
                        "weight": weight.ravel(),
                    }
                )
            )
    return pd.concat(parts, ignore_index=True)


def share(hits: pd.Series) -> str:
    p, n = float(hits.mean()), len(hits)
    return f"{p:6.1%} ± {np.sqrt(p * (1 - p) / n):.1%}"


def covered(table: pd.DataFrame, truth: dict[str, float], value: str) -> pd.Series:
    true = table["chatbot"].map(truth)
    ends = ("low", "high") if value == "value" else (f"{value}_low", f"{value}_high")
    low, high = table[ends[0]], table[ends[1]]
    return (low <= true) & (true <= high)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--simulations", type=int, default=400)
    parser.add_argument("--seeds", type=int, default=120, help="seeds per language")
    parser.add_argument("--labels", type=int, default=30, help="labels per language x chatbot")
    parser.add_argument("--random-seed", type=int, default=11)
    args = parser.parse_args()
    rng = np.random.default_rng(args.random_seed)
    started = time.perf_counter()
    rates = {"bot-a": 0.2, "bot-b": 0.3}
    truth = {chatbot: true_rate(rate) for chatbot, rate in rates.items()}
    print(
        f"python benchmarks/corrected_figures.py --simulations {args.simulations} --seeds "
        f"{args.seeds} --labels {args.labels}: {len(LANGUAGES)} languages x 2 chatbots, "
        f"{args.seeds} seeds, {args.labels} labels per cell; judge +15 points in de, -5 in zh"
    )
    observed = simulate(rates, args.simulations, args.seeds, args.labels, False, rng)
    raw = chatbot_intervals(observed.drop(columns=["human", "weight"]))
    corrected = corrected_intervals(observed)
    for scope, wanted in (("per language", "!all"), ("all languages", ALL_LANGUAGES)):
        pick_raw = raw["language"] == ALL_LANGUAGES
        pick = corrected["language"] == ALL_LANGUAGES
        if wanted != ALL_LANGUAGES:
            pick_raw, pick = ~pick_raw, ~pick
        print(f"95% interval coverage, {scope}:")
        for label, table, value in (
            ("raw (the judge's labels as truth)", raw[pick_raw], "value"),
            ("corrected (PPI++)", corrected[pick], "corrected"),
            ("labels only", corrected[pick], "labels_only"),
        ):
            print(f"  {label:<35}{share(covered(table, truth, value))}")
    noise = corrected_intervals(
        simulate(rates, args.simulations, args.seeds, args.labels, True, rng)
    )
    for name, table in (("this judge", corrected), ("a judge at random", noise)):
        table = table[table["language"] != ALL_LANGUAGES]
        width = (table["corrected_high"] - table["corrected_low"]).mean()
        alone = (table["labels_only_high"] - table["labels_only_low"]).mean()
        print(
            f"mean interval width, {name}: corrected {width:.3f}, labels only {alone:.3f} "
            f"(ratio {width / alone:.2f}); corrected coverage "
            f"{share(covered(table, truth, 'corrected'))}"
        )
    same = simulate(
        {"bot-a": 0.25, "bot-b": 0.25}, args.simulations, args.seeds, args.labels, False, rng
    )
    pairs = [("bot-b", "bot-a")]
    differences = corrected_differences(same, pairs)
    alarms = (
        pd.concat(
            [gate(part, GateConfig()) for _, part in differences.groupby("judge", sort=False)]
        )
        .groupby("judge")["regression"]
        .any()
    )
    from dialbench.figures.differences import chatbot_differences

    raw_holds = chatbot_differences(same.drop(columns=["human", "weight"]), pairs)
    raw_any = raw_holds.groupby("judge")["holds"].any()
    print(
        f"no true difference: the gate on corrected figures flags {share(alarms)} of runs "
        f"(any of {len(LANGUAGES) + 1} rows); raw differences hold in {share(raw_any)}"
    )
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
