"""BotChat Arena verdicts as a table, and what is computed from it: comparisons for the ratings,
win / tie / lose matrices (Figure 5), and per judge how often the verdict flips with the order.

A verdict table has one row per scored arena judgment: `judge`, `first` and `second` (dialogue
ids in the order shown), `first_model`, `second_model`, `winner` (first / second / tie),
`cluster` (the ChatSEED) and `n` (utterances per dialogue).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import pandas as pd
from sklearn.metrics import cohen_kappa_score

from dialbench.botchat.elo import Game, Outcome

VERDICT_COLUMNS = ["judge", "first", "second", "first_model", "second_model", "winner"]
OUTCOME: dict[str, Outcome] = {"first": "a", "second": "b", "tie": "tie"}
MATRIX_COLUMNS = [
    "model",
    "opponent",
    "games",
    "wins",
    "ties",
    "losses",
    "win_rate",
    "win_or_tie_rate",
]
CONSISTENCY_COLUMNS = ["judge", "n", "pairs", "flips", "flip_rate", "kappa", "note"]
CONSISTENCY_DEFINITION = (
    "A pair judged in both orders is consistent when both verdicts name the same winning "
    "model, or both a tie. Order-flip rate = inconsistent pairs / pairs judged (ok) in both "
    "orders. Cohen's κ compares the two orders' verdicts as labels (the lexicographically first "
    "dialogue wins / the other wins / tie); it is undefined when both orders give one label only."
)


def comparisons(verdicts: pd.DataFrame) -> list[Game]:
    columns = ["first_model", "second_model", "winner", "cluster"]
    return [
        Game(a=str(a), b=str(b), outcome=OUTCOME[str(winner)], cluster=str(cluster))
        for a, b, winner, cluster in verdicts[columns].itertuples(index=False)
    ]


def groups(verdicts: pd.DataFrame) -> Iterator[tuple[str, int, pd.DataFrame]]:
    """Per judge and dialogue length: ratings are never pooled across judges or lengths."""
    for (judge, n), part in verdicts.groupby(["judge", "n"], sort=True):
        yield str(judge), int(str(n)), part


def win_matrix(verdicts: pd.DataFrame) -> pd.DataFrame:
    """For each model and opponent, over both orders: games, wins, ties, losses and rates."""
    as_first = verdicts.assign(
        model=verdicts["first_model"],
        opponent=verdicts["second_model"],
        result=verdicts["winner"].map({"first": "win", "second": "loss", "tie": "tie"}),
    )
    as_second = verdicts.assign(
        model=verdicts["second_model"],
        opponent=verdicts["first_model"],
        result=verdicts["winner"].map({"first": "loss", "second": "win", "tie": "tie"}),
    )
    both = pd.concat([as_first, as_second], ignore_index=True)
    rows = []
    for (model, opponent), part in both.groupby(["model", "opponent"], sort=True):
        counts = part["result"].value_counts()
        wins, ties, losses = (int(counts.get(k, 0)) for k in ("win", "tie", "loss"))
        games = wins + ties + losses
        rows.append(
            {
                "model": model,
                "opponent": opponent,
                "games": games,
                "wins": wins,
                "ties": ties,
                "losses": losses,
                "win_rate": wins / games,
                "win_or_tie_rate": (wins + ties) / games,
            }
        )
    return pd.DataFrame(rows, columns=MATRIX_COLUMNS)


def _model_outcome(row: pd.Series) -> str:
    """The verdict relative to the pair, not the order: which dialogue won, or tie."""
    if row["winner"] == "tie":
        return "tie"
    return str(row["first"] if row["winner"] == "first" else row["second"])


def order_consistency(verdicts: pd.DataFrame, by: Sequence[str] = ("judge", "n")) -> pd.DataFrame:
    """Per judge and length (or other `by` columns): pairs judged in both orders, flips, flip
    rate and Cohen's κ between the orders."""
    rows = []
    for key, part in verdicts.groupby(list(by), sort=True):
        by_order = {
            (row["first"], row["second"]): _model_outcome(row) for _, row in part.iterrows()
        }
        forward, backward = [], []
        for (first, second), outcome in by_order.items():
            if first < second and (second, first) in by_order:
                label = {first: "first-id wins", second: "second-id wins"}
                forward.append(label.get(outcome, "tie"))
                backward.append(label.get(by_order[(second, first)], "tie"))
        pairs = len(forward)
        flips = sum(a != b for a, b in zip(forward, backward, strict=True))
        kappa: float | None = None
        note = None
        if pairs == 0:
            note = "no pair judged (ok) in both orders"
        elif len(set(forward) | set(backward)) < 2:
            note = "κ undefined: one label only"
        else:
            value = float(cohen_kappa_score(forward, backward))
            kappa, note = (value, None) if np.isfinite(value) else (None, "κ undefined")
        rows.append(
            {
                **dict(zip(by, key, strict=True)),
                "pairs": pairs,
                "flips": flips,
                "flip_rate": flips / pairs if pairs else None,
                "kappa": kappa,
                "note": note,
            }
        )
    return pd.DataFrame(rows, columns=[*by, *CONSISTENCY_COLUMNS[2:]])
