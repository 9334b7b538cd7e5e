"""Arena ratings at the paper's scale: bootstrap ELO (1,000 shuffles x 10 seeds) and
Bradley-Terry with 1,000 cluster-bootstrap draws (plain and length-controlled), on synthetic
verdicts from known strengths.

BotChat Arena had 222 ChatSEEDs and 14 models: 91 pairs per ChatSEED, both orders, so
40,404 comparisons. Prints the wall time of each, and the ratings beside the true strengths.
Usage: .venv/bin/python benchmarks/arena_ratings.py [SEEDS] [MODELS]
"""

from __future__ import annotations

import itertools
import sys
import time

import numpy as np

from dialbench.botchat.elo import (
    Game,
    Outcome,
    bootstrap_elo,
    bradley_terry,
    length_controlled,
)


def synthetic(seeds: int, models: int, rng: np.random.Generator) -> list[Game]:
    """Each model's log-odds strength spaced evenly; a tie when the two are within a margin."""
    strength = np.linspace(-1.5, 1.5, models)
    found = []
    for seed in range(seeds):
        for i, j in itertools.permutations(range(models), 2):
            p = 1 / (1 + np.exp(strength[j] - strength[i]))
            draw = rng.random()
            outcome: Outcome = "a" if draw < p - 0.1 else "b" if draw > p + 0.1 else "tie"
            found.append(Game(f"m{i:02d}", f"m{j:02d}", outcome, f"s{seed}"))
    return found


def main() -> None:
    seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 222
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 14
    comparisons = synthetic(seeds, count, np.random.default_rng(0))
    models = [f"m{i:02d}" for i in range(count)]
    print(f"{len(comparisons):,} comparisons, {seeds} ChatSEEDs, {count} models")
    started = time.perf_counter()
    elo = bootstrap_elo(comparisons, models)
    print(f"bootstrap ELO, 1,000 shuffles x 10 seeds: {time.perf_counter() - started:.1f} s")
    started = time.perf_counter()
    bt = bradley_terry(comparisons, models, resamples=1000)
    print(f"Bradley-Terry, 1,000 cluster draws: {time.perf_counter() - started:.1f} s")
    started = time.perf_counter()
    lengths = np.random.default_rng(1).normal(size=len(comparisons)).tolist()
    controlled = length_controlled(comparisons, lengths, models, resamples=1000)
    seconds = time.perf_counter() - started
    print(f"length-controlled Bradley-Terry, 1,000 cluster draws: {seconds:.1f} s")
    print(f"length beta (no effect simulated): {controlled.beta:.3f}")
    print("model  elo     std   bt      95% CI")
    for r, rating, low, high in zip(elo, bt.rating, bt.lower, bt.upper, strict=True):
        print(
            f"{r.model}  {r.elo:6.1f}  {r.std_across_seeds:4.2f}  {rating:6.1f}  "
            f"[{low:6.1f}, {high:6.1f}]"
        )


if __name__ == "__main__":
    main()
