"""Ratings from pairwise comparisons: BotChat's bootstrap ELO, exactly as the paper computes it,
and Bradley–Terry by maximum likelihood with cluster-bootstrap confidence intervals.

A comparison is (model A, model B, outcome) with outcome "a", "b" or "tie", and the cluster it
belongs to (its ChatSEED). A model asked for that never played, or comparisons that split the
models into groups that never met, is an error: such a model has no rating, not a default one.

- **Bootstrap ELO** (BotChat Appendix A): every model starts at 1000; each comparison moves the
  ratings by K = 32 times (result − expected), expected = 1 / (1 + 10^((S_j − S_i) / 400)), a
  tie scoring 0.5. The comparisons are shuffled 1,000 times (a permutation, no resampling), the
  ELO is computed for each order, and each model's median over the orders is its bootstrap ELO.
  That is repeated for 10 shuffle seeds: the mean is reported, and the standard deviation
  across seeds shows how stable it is.
- **Bradley–Terry**: P(i beats j) = 1 / (1 + exp(θ_j − θ_i)), fitted by maximum likelihood
  (scipy L-BFGS on the exact log-likelihood and its gradient). A tie counts as half a win for
  each side. A model that won (or lost) every comparison has no finite maximum; a ridge penalty
  of 1e-6·Σθ², negligible otherwise, keeps it finite (as FastChat's logistic regression does).
  θ is shown on the ELO scale, 1000 + 400·log10(e)·(θ − mean θ). 95 % intervals come from a
  cluster bootstrap: ChatSEEDs are drawn with replacement (all comparisons of a drawn ChatSEED
  come along) and the model refitted, 2.5th and 97.5th percentiles; a draw in which some model
  never plays is left out (`resamples` counts the draws used).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt
from scipy.optimize import minimize

from dialbench.errors import DialbenchError
from dialbench.resampling import ClusterResamples, percentile_interval

Outcome = Literal["a", "b", "tie"]
INIT, SCALE, K = 1000.0, 400.0, 32.0
ELO_ROUNDS, ELO_SEEDS = 1000, 10
BT_RIDGE = 1e-6
ELO_PER_NAT = SCALE / math.log(10)


@dataclass(frozen=True)
class Game:
    a: str
    b: str
    outcome: Outcome
    cluster: str = ""

    @property
    def score_a(self) -> float:
        return {"a": 1.0, "b": 0.0, "tie": 0.5}[self.outcome]


def rated_models(comparisons: Sequence[Game], models: Sequence[str]) -> list[str]:
    """The models to rate, each of which played; every one must be reachable from every other
    through comparisons, or their ratings are on unrelated scales."""
    if not models:
        raise DialbenchError("no models to rate")
    played = {c.a for c in comparisons} | {c.b for c in comparisons}
    absent = [m for m in models if m not in played]
    if absent:
        raise DialbenchError(
            f"{', '.join(absent)} never played a comparison: no rating can be given "
            "(were its dialogues judged, and did every judgment come back unscored?)"
        )
    extra = sorted(played - set(models))
    if extra:
        raise DialbenchError(f"comparisons name unlisted model(s): {', '.join(extra)}")
    reached, frontier = {models[0]}, [models[0]]
    neighbours: dict[str, set[str]] = {m: set() for m in models}
    for c in comparisons:
        neighbours[c.a].add(c.b)
        neighbours[c.b].add(c.a)
    while frontier:
        for other in neighbours[frontier.pop()] - reached:
            reached.add(other)
            frontier.append(other)
    if len(reached) < len(models):
        apart = ", ".join(m for m in models if m not in reached)
        raise DialbenchError(f"{apart} never met {models[0]}, directly or through others")
    return list(models)


def elo(
    comparisons: Sequence[Game],
    models: Sequence[str],
    *,
    init: float = INIT,
    scale: float = SCALE,
    k: float = K,
) -> dict[str, float]:
    """Vanilla ELO over the comparisons in the order given (BotChat Appendix A, equation 1)."""
    rating = dict.fromkeys(models, init)
    for c in comparisons:
        expected_a = 1 / (1 + 10 ** ((rating[c.b] - rating[c.a]) / scale))
        expected_b = 1 / (1 + 10 ** ((rating[c.a] - rating[c.b]) / scale))
        rating[c.a] += k * (c.score_a - expected_a)
        rating[c.b] += k * (1 - c.score_a - expected_b)
    return rating


def permutations(count: int, rounds: int, seed: int) -> npt.NDArray[np.int64]:
    """`rounds` random orders of `count` comparisons, one per row, drawn from `seed`."""
    rng = np.random.default_rng(seed)
    return np.array([rng.permutation(count) for _ in range(rounds)], dtype=np.int64)


def shuffled_elo_rounds(
    comparisons: Sequence[Game], models: Sequence[str], orders: npt.NDArray[np.int64]
) -> npt.NDArray[np.float64]:
    """`elo` over each order of the comparisons (a row of `orders`): rows rounds, columns
    models. The rounds run side by side, one comparison step at a time."""
    at = {m: i for i, m in enumerate(models)}
    a = np.array([at[c.a] for c in comparisons], dtype=np.int64)[orders]
    b = np.array([at[c.b] for c in comparisons], dtype=np.int64)[orders]
    score = np.array([c.score_a for c in comparisons])[orders]
    rounds = np.arange(len(orders))
    rating = np.full((len(orders), len(models)), INIT)
    for step in range(orders.shape[1]):
        ai, bi, s = a[:, step], b[:, step], score[:, step]
        ra, rb = rating[rounds, ai], rating[rounds, bi]
        rating[rounds, ai] = ra + K * (s - 1 / (1 + 10 ** ((rb - ra) / SCALE)))
        rating[rounds, bi] = rb + K * (1 - s - 1 / (1 + 10 ** ((ra - rb) / SCALE)))
    return rating


@dataclass(frozen=True)
class BootstrapElo:
    model: str
    elo: float = 0.0
    std_across_seeds: float = 0.0
    seeds: int = 0
    rounds: int = 0


def bootstrap_elo(
    comparisons: Sequence[Game],
    models: Sequence[str],
    *,
    rounds: int = ELO_ROUNDS,
    seeds: Sequence[int] = tuple(range(ELO_SEEDS)),
) -> list[BootstrapElo]:
    """BotChat's bootstrap ELO: per seed, each model's median over `rounds` shuffles; then the
    mean over the seeds and the (population) standard deviation across them."""
    models = rated_models(comparisons, models)
    medians = np.array(
        [
            np.median(
                shuffled_elo_rounds(comparisons, models, permutations(len(comparisons), rounds, s)),
                axis=0,
            )
            for s in seeds
        ]
    )
    return [
        BootstrapElo(
            model=m,
            elo=float(medians[:, i].mean()),
            std_across_seeds=float(medians[:, i].std()),
            seeds=len(seeds),
            rounds=rounds,
        )
        for i, m in enumerate(models)
    ]


def _win_matrix(comparisons: Sequence[Game], models: Sequence[str]) -> npt.NDArray[np.float64]:
    """wins[i, j]: how often i beat j, a tie counting half to each."""
    at = {m: i for i, m in enumerate(models)}
    wins = np.zeros((len(models), len(models)))
    for c in comparisons:
        wins[at[c.a], at[c.b]] += c.score_a
        wins[at[c.b], at[c.a]] += 1 - c.score_a
    return wins


def bradley_terry_strengths(
    comparisons: Sequence[Game], models: Sequence[str]
) -> npt.NDArray[np.float64]:
    """Maximum-likelihood θ (natural log-odds, mean zero) for the models, in their order."""
    return fit_win_matrix(_win_matrix(comparisons, models))


def fit_win_matrix(wins: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """θ from wins[i, j] (how often i beat j): maximum likelihood with the tiny ridge."""
    games = wins + wins.T

    def objective(theta: npt.NDArray[np.float64]) -> tuple[float, npt.NDArray[np.float64]]:
        diff = theta[:, None] - theta[None, :]
        # log P(i beats j) = -log(1 + exp(-(θi - θj))), computed stably
        log_p = -np.logaddexp(0.0, -diff)
        nll = -float((wins * log_p).sum()) + BT_RIDGE * float(theta @ theta)
        p = np.exp(log_p)
        gradient = -((wins - games * p).sum(axis=1)) + 2 * BT_RIDGE * theta
        return nll, gradient

    fitted = minimize(
        objective,
        np.zeros(len(wins)),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": 10_000, "gtol": 1e-10, "ftol": 1e-15},
    )
    theta: npt.NDArray[np.float64] = fitted.x - fitted.x.mean()
    return theta


def elo_scale(theta: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    scaled: npt.NDArray[np.float64] = INIT + ELO_PER_NAT * (theta - theta.mean())
    return scaled


def _every_model_played(table: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """The ratings of the draws in which every model played, which must be some."""
    if not len(table):
        raise DialbenchError("no bootstrap draw of the ChatSEEDs holds every model: too few")
    return table


@dataclass(frozen=True)
class BradleyTerry:
    models: list[str]
    rating: list[float]
    lower: list[float]
    upper: list[float]
    win_probability: list[list[float]]  # [i][j]: P(models[i] beats models[j])
    comparisons: int
    clusters: int
    resamples: int


def bradley_terry(
    comparisons: Sequence[Game],
    models: Sequence[str],
    *,
    resamples: int = 1000,
    seed: int = 0,
) -> BradleyTerry:
    """Ratings on the ELO scale with 95 % cluster-bootstrap intervals, and P(i beats j)."""
    models = rated_models(comparisons, models)
    theta = bradley_terry_strengths(comparisons, models)
    drawn = ClusterResamples.draw([c.cluster for c in comparisons], resamples, seed)
    members: list[list[Game]] = [[] for _ in range(drawn.n_clusters)]
    for c, cluster in zip(comparisons, drawn.cluster, strict=True):
        members[cluster].append(c)
    # a draw's win matrix is the sum of its ChatSEEDs' matrices, each as often as it was drawn
    per_cluster = np.array([_win_matrix(part, models) for part in members])

    def rated(counts: npt.NDArray[np.int64]) -> npt.NDArray[np.float64] | None:
        wins = np.tensordot(counts.astype(float), per_cluster, axes=1)
        if not ((wins + wins.T).sum(axis=1) > 0).all():  # some model never played
            return None
        return elo_scale(fit_win_matrix(wins))

    table = _every_model_played(drawn.replicates(rated))
    lower, upper = percentile_interval(table)
    rating = elo_scale(theta)
    probability = 1 / (1 + np.exp(theta[None, :] - theta[:, None]))
    return BradleyTerry(
        models=list(models),
        rating=[float(r) for r in rating],
        lower=[float(v) for v in lower],
        upper=[float(v) for v in upper],
        win_probability=[[float(p) for p in row] for row in probability],
        comparisons=len(comparisons),
        clusters=drawn.n_clusters,
        resamples=len(table),
    )


@dataclass(frozen=True)
class LengthControlled:
    """Bradley–Terry with a length covariate: logit P(a beats b) = θa − θb + β·x, x the
    standardised difference in mean utterance length (a's minus b's)."""

    models: list[str]
    rating: list[float]
    lower: list[float]
    upper: list[float]
    beta: float
    beta_lower: float
    beta_upper: float
    resamples: int


def fit_with_covariate(
    a: npt.NDArray[np.int64],
    b: npt.NDArray[np.int64],
    score: npt.NDArray[np.float64],
    x: npt.NDArray[np.float64],
    weight: npt.NDArray[np.float64],
    models: int,
) -> tuple[npt.NDArray[np.float64], float]:
    """Weighted maximum likelihood of θ (mean zero) and β, a tie scoring half; the same tiny
    ridge on θ and β as the plain fit."""

    def objective(params: npt.NDArray[np.float64]) -> tuple[float, npt.NDArray[np.float64]]:
        theta, beta = params[:models], params[models]
        d = theta[a] - theta[b] + beta * x
        log_win, log_loss = -np.logaddexp(0.0, -d), -np.logaddexp(0.0, d)
        nll = -float((weight * (score * log_win + (1 - score) * log_loss)).sum())
        nll += BT_RIDGE * float(params @ params)
        residual = weight * (score - np.exp(log_win))  # d nll / d d = -residual
        gradient = np.append(
            np.bincount(b, residual, models) - np.bincount(a, residual, models),
            -float((residual * x).sum()),
        )
        return nll, gradient + 2 * BT_RIDGE * params

    fitted = minimize(
        objective,
        np.zeros(models + 1),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": 10_000, "gtol": 1e-10, "ftol": 1e-15},
    )
    theta: npt.NDArray[np.float64] = fitted.x[:models] - fitted.x[:models].mean()
    return theta, float(fitted.x[models])


def length_controlled(
    comparisons: Sequence[Game],
    length_difference: Sequence[float],
    models: Sequence[str],
    *,
    resamples: int = 1000,
    seed: int = 0,
) -> LengthControlled:
    """Ratings on the ELO scale with the length effect taken out, β (log-odds per standard
    deviation of length difference), and 95 % cluster-bootstrap intervals for both."""
    models = rated_models(comparisons, models)
    at = {m: i for i, m in enumerate(models)}
    a = np.array([at[c.a] for c in comparisons], dtype=np.int64)
    b = np.array([at[c.b] for c in comparisons], dtype=np.int64)
    score = np.array([c.score_a for c in comparisons])
    x = np.asarray(length_difference, dtype=float)
    theta, beta = fit_with_covariate(a, b, score, x, np.ones(len(comparisons)), len(models))
    drawn = ClusterResamples.draw([c.cluster for c in comparisons], resamples, seed)

    def rated(counts: npt.NDArray[np.int64]) -> npt.NDArray[np.float64] | None:
        weight = counts[drawn.cluster].astype(float)
        played = np.bincount(a, weight, len(models)) + np.bincount(b, weight, len(models))
        if not (played > 0).all():
            return None
        drawn_theta, drawn_beta = fit_with_covariate(a, b, score, x, weight, len(models))
        return np.append(elo_scale(drawn_theta), drawn_beta)  # the last column is β

    table = _every_model_played(drawn.replicates(rated))
    lower, upper = percentile_interval(table)
    return LengthControlled(
        models=list(models),
        rating=[float(r) for r in elo_scale(theta)],
        lower=[float(v) for v in lower[:-1]],
        upper=[float(v) for v in upper[:-1]],
        beta=beta,
        beta_lower=float(lower[-1]),
        beta_upper=float(upper[-1]),
        resamples=len(table),
    )
