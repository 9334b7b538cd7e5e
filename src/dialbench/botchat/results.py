"""The BotChat results of a run that need its store, not only its judgments: UniEval verdicts
with each dialogue's length and ChatSEED (for pass@N, Figure 4), Arena ratings (bootstrap ELO,
Bradley–Terry with 95 % CIs, P(i beats j)), win / tie / lose matrices (Figure 5), and GTEval
against the human dialogue (Figure 6). The unieval, arena and gteval report sections show them;
`dialbench arena` prints the same ratings.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from dialbench.botchat.elo import bootstrap_elo, bradley_terry, length_controlled
from dialbench.botchat.lengths import utterance_lengths
from dialbench.botchat.selfchat import SOURCE
from dialbench.botchat.verdicts import comparisons, groups, win_matrix
from dialbench.errors import DialbenchError
from dialbench.judge.protocols.arena import ArenaProtocol, self_chat_key
from dialbench.judge.protocols.gteval import GTEvalProtocol
from dialbench.judge.protocols.unieval import UniEvalProtocol
from dialbench.ratings import JudgeNames
from dialbench.schema import ALL_LANGUAGES, Dialogue, Judgment, speaker_turns
from dialbench.store import RunStore

DEFAULT_ROUNDS = 1000  # the paper's shuffles per seed for bootstrap ELO
DEFAULT_RESAMPLES = 1000  # cluster-bootstrap draws for the Bradley–Terry intervals


def ratings_definition(rounds: int, resamples: int) -> str:
    return (
        f"Bootstrap ELO (BotChat): init 1000, scale 400, K = 32; the comparisons are shuffled "
        f"{rounds:,} times and each model's median ELO taken, for 10 shuffle seeds: `elo` is the "
        "mean over the seeds, `elo_std` the standard deviation across them. Bradley–Terry: "
        "maximum likelihood (a tie counts as half a win for each side), on the ELO scale "
        f"(1000 + 400·log10(e)·θ), with a 95 % interval from {resamples:,} cluster-bootstrap "
        "draws of the ChatSEEDs (`bootstrap_draws`: those in which every model played). "
        "`P(beats X)`: the probability that the row's model beats X under the Bradley–Terry "
        "fit. Length-controlled Bradley–Terry adds a covariate to the same likelihood: "
        "logit P(a beats b) = θa − θb + β·x, x = the difference in mean cl100k tokens per "
        "generated utterance between the two dialogues, divided by that difference's standard "
        "deviation in the group; `length_beta` < 0 means the judge favours the shorter "
        "dialogue, and `bt_length_controlled` is the rating with that effect taken out (same "
        "cluster bootstrap). Ratings are per judge and dialogue length, never pooled; in a run "
        "with several languages, also per language (`language` = all for the overall ranking)."
    )


@dataclass(frozen=True)
class Ratings:
    """The ratings table (empty when no group could be rated) and, per unrated group, why."""

    table: pd.DataFrame
    notes: list[str]


def self_chats(store: RunStore) -> dict[str, Dialogue]:
    return {d.id: d for d in store.records(Dialogue, source=SOURCE) if self_chat_key(d) is not None}


def arena_verdicts(store: RunStore, dialogues: dict[str, Dialogue]) -> pd.DataFrame:
    judgments = list(store.records(Judgment, protocol=ArenaProtocol.name))
    names = JudgeNames(judgments)
    rows = []
    for j in judgments:
        first, second = (
            dialogues.get(j.target.dialogue_id),
            dialogues.get(j.target.other_dialogue_id or ""),
        )
        if j.parse_status != "ok" or j.result is None or first is None or second is None:
            continue
        key = self_chat_key(first)
        assert key is not None  # every dialogue in `dialogues` is a finished self-chat
        rows.append(
            {
                "judge": names(j),
                "first": first.id,
                "second": second.id,
                "first_model": first.participants.assistant,
                "second_model": second.participants.assistant,
                "winner": j.result["winner"],
                "cluster": key[0],
                "n": key[1],
                "language": first.language,
            }
        )
    columns = ["judge", "first", "second", "first_model", "second_model", "winner", "cluster", "n"]
    columns.append("language")
    return pd.DataFrame(rows, columns=columns)


def unieval_verdicts(store: RunStore, dialogues: dict[str, Dialogue]) -> pd.DataFrame:
    judgments = list(store.records(Judgment, protocol=UniEvalProtocol.name))
    names = JudgeNames(judgments)
    rows = []
    for j in judgments:
        dialogue = dialogues.get(j.target.dialogue_id)
        if j.parse_status != "ok" or j.result is None or dialogue is None:
            continue
        index = j.result["first_ai_index"]
        rows.append(
            {
                "judge": names(j),
                "chatbot": dialogue.participants.assistant,
                "ai_involved": bool(j.result["ai_involved"]),
                "first_ai_index": float(index) if isinstance(index, int) else np.nan,
                "utterances": len(speaker_turns(dialogue.turns)),
                "seed_utterances": dialogue.metadata.get("seed_utterances", 0),
            }
        )
    columns = ["judge", "chatbot", "ai_involved", "first_ai_index", "utterances", "seed_utterances"]
    return pd.DataFrame(rows, columns=columns)


def gteval_table(store: RunStore, dialogues: dict[str, Dialogue]) -> pd.DataFrame:
    """GTEval (Figure 6): per judge and model, wins / ties / losses against the human dialogue
    over the scored judgments of both orders, sorted by win + tie rate."""
    judgments = list(store.records(Judgment, protocol=GTEvalProtocol.name))
    names = JudgeNames(judgments)
    rows = []
    for j in judgments:
        if j.parse_status != "ok" or j.result is None:
            continue
        first, second = j.target.dialogue_id, j.target.other_dialogue_id or ""
        position = "first" if first in dialogues else "second" if second in dialogues else None
        if position is None:
            continue
        chat = dialogues[first if position == "first" else second]
        winner = j.result["winner"]
        outcome = "tie" if winner == "tie" else "win" if winner == position else "loss"
        rows.append({"judge": names(j), "model": chat.participants.assistant, "outcome": outcome})
    columns = [
        "judge",
        "model",
        "judgments",
        "wins",
        "ties",
        "losses",
        "win_rate",
        "win_or_tie_rate",
    ]
    if not rows:
        return pd.DataFrame(columns=columns)
    counts = (
        pd.DataFrame(rows)
        .groupby(["judge", "model"])["outcome"]
        .value_counts()
        .unstack(fill_value=0)
        .reindex(columns=["win", "tie", "loss"], fill_value=0)
        .rename(columns={"win": "wins", "tie": "ties", "loss": "losses"})
        .reset_index()
    )
    counts["judgments"] = counts[["wins", "ties", "losses"]].sum(axis=1)
    counts["win_rate"] = counts["wins"] / counts["judgments"]
    counts["win_or_tie_rate"] = (counts["wins"] + counts["ties"]) / counts["judgments"]
    ordered = counts.sort_values(["judge", "win_or_tie_rate"], ascending=[True, False])
    return ordered[columns].reset_index(drop=True)


def length_differences(part: pd.DataFrame, mean_tokens: dict[str, float]) -> list[float]:
    """Per verdict, the first dialogue's mean utterance length minus the second's (cl100k
    tokens of generated utterances; none counts 0), divided by the standard deviation of those
    differences in the group (0 when every difference is the same)."""
    pairs = zip(part["first"], part["second"], strict=True)
    raw = np.array([mean_tokens.get(f, 0.0) - mean_tokens.get(s, 0.0) for f, s in pairs])
    spread = float(raw.std()) if len(raw) else 0.0
    return [float(v) for v in (raw / spread if spread > 0 else np.zeros(len(raw)))]


def ratings_table(
    verdicts: pd.DataFrame,
    models_at: dict[int, list[str]],
    mean_tokens: dict[str, float],
    notes: list[str],
    *,
    rounds: int,
    resamples: int,
    language: str = ALL_LANGUAGES,
) -> pd.DataFrame:
    """Ratings per judge and length of every model with self-chats of that length, over the
    verdicts given (`language` names them). A group in which some model never played (say, all
    its verdicts were unscored) gets no ratings, and a note that says why."""
    rows = []
    for judge, n, part in groups(verdicts):
        found = comparisons(part)
        models = models_at[n]
        try:
            elo = {r.model: r for r in bootstrap_elo(found, models, rounds=rounds)}
            bt = bradley_terry(found, models, resamples=resamples)
            controlled = length_controlled(
                found, length_differences(part, mean_tokens), models, resamples=resamples
            )
        except DialbenchError as problem:
            where = "" if language == ALL_LANGUAGES else f" in {language}"
            notes.append(f"no ratings for judge {judge} at N = {n}{where}: {problem}")
            continue
        for i, model in enumerate(bt.models):
            rows.append(
                {
                    "judge": judge,
                    "n": n,
                    "language": language,
                    "model": model,
                    "comparisons": sum(model in (c.a, c.b) for c in found),
                    "elo": elo[model].elo,
                    "elo_std": elo[model].std_across_seeds,
                    "bt": bt.rating[i],
                    "bt_low": bt.lower[i],
                    "bt_high": bt.upper[i],
                    "bt_length_controlled": controlled.rating[i],
                    "bt_lc_low": controlled.lower[i],
                    "bt_lc_high": controlled.upper[i],
                    "length_beta": controlled.beta,
                    "length_beta_low": controlled.beta_lower,
                    "length_beta_high": controlled.beta_upper,
                    "chatseeds": bt.clusters,
                    "bootstrap_draws": bt.resamples,
                    **{
                        f"P(beats {other})": bt.win_probability[i][k]
                        for k, other in enumerate(bt.models)
                    },
                }
            )
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    return table.sort_values(["judge", "n", "elo"], ascending=[True, True, False]).reset_index(
        drop=True
    )


def win_tie_lose(verdicts: pd.DataFrame) -> pd.DataFrame:
    """Figure 5 as a table: the win matrix of every judge and length, one row per model and
    opponent."""
    parts = [win_matrix(part).assign(judge=j, n=n) for j, n, part in groups(verdicts)]
    matrix = pd.concat(parts, ignore_index=True)
    return matrix[["judge", "n", *matrix.columns.drop(["judge", "n"])]]


def arena_ratings(
    verdicts: pd.DataFrame, dialogues: dict[str, Dialogue], *, rounds: int, resamples: int
) -> Ratings:
    """The ratings of every judge and length, overall and, in a run with several languages,
    per language; each group left unrated gets a note saying why."""
    models_at: dict[int, set[str]] = {}
    for d in dialogues.values():
        models_at.setdefault(len(d.turns), set()).add(str(d.participants.assistant))
    by_dialogue = utterance_lengths(list(dialogues.values())).groupby("dialogue_id")["tokens"]
    mean_tokens = {str(i): float(v) for i, v in by_dialogue.mean().items()}
    languages = sorted(verdicts["language"].unique())
    scopes = [(ALL_LANGUAGES, verdicts)]
    if len(languages) > 1:  # per-language rankings beside the overall one
        scopes += [(tag, verdicts[verdicts["language"] == tag]) for tag in languages]
    notes: list[str] = []
    tables = [
        ratings_table(
            part,
            {n: sorted(models) for n, models in models_at.items()},
            mean_tokens,
            notes,
            rounds=rounds,
            resamples=resamples,
            language=tag,
        )
        for tag, part in scopes
    ]
    return Ratings(table=pd.concat(tables, ignore_index=True), notes=notes)
