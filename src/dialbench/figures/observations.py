"""What a chatbot figure is made of, per protocol: one observation per judged item and dimension,
placed by judge, chatbot, language and seed unit, with the direction that is better.

An item's value is the mean over its ok samples (an item weighs the same however often it was
judged). A figure (`intervals.py`) is the mean of its observations; a difference between
chatbots (`differences.py`) compares them seed by seed. Which dimensions of a protocol are
chatbot figures is the protocol's entry in OBSERVATIONS: a new protocol adds one function and one
line; the Arena has its own ratings with intervals (`botchat/elo.py`) and no entry here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import pandas as pd

from dialbench.figures.frame import ok, per_item
from dialbench.issue_labels import ISSUES_PREFIX, load_issue_labels
from dialbench.judge.protocols.holistic import QUALITY_LEVELS
from dialbench.judge.protocols.submetrics import DIMENSIONS, SCORES
from dialbench.registry import Registry

if TYPE_CHECKING:
    from dialbench.figures.run_reads import RunReads

Better = Literal["higher", "lower"]
COLUMNS = [
    "protocol",
    "judge",
    "dimension",
    "better",
    "lowest",
    "highest",
    "chatbot",
    "language",
    "unit",
    "item",
    "value",
]
ObservationsOf = Callable[[pd.DataFrame, "RunReads"], pd.DataFrame]


def empty() -> pd.DataFrame:
    return pd.DataFrame(columns=COLUMNS)


@dataclass(frozen=True)
class Figure:
    """What a dimension's figure is: which direction is better, and the ends of its scale (a
    rate, the share of items with something, runs from 0 to 1: its interval and the gate's
    margin read the scale)."""

    better: Better
    lowest: float = 0.0
    highest: float = 1.0

    @classmethod
    def score(cls, levels: Sequence[int]) -> Figure:
        """A score on these levels, higher better."""
        return cls("higher", min(levels), max(levels))

    @property
    def is_rate(self) -> bool:
        return (self.lowest, self.highest) == (0.0, 1.0)


def judged_values(
    frame: pd.DataFrame, protocol: str, figures: Mapping[str, Figure]
) -> pd.DataFrame:
    """The item means of a protocol's ok judgments, one row per item and dimension in
    `figures` (those the judgments hold)."""
    scored = ok(frame, protocol)
    dimensions = [d for d in figures if d in scored and scored[d].notna().any()]
    if scored.empty or not dimensions:
        return empty()
    long = per_item(scored, dimensions).melt(
        ["judge", "item", "chatbot", "language", "unit"], dimensions, "dimension", "value"
    )
    long = long.dropna(subset="value")
    of = [figures[dimension] for dimension in long["dimension"]]
    long = long.assign(
        protocol=protocol,
        better=[f.better for f in of],
        lowest=[f.lowest for f in of],
        highest=[f.highest for f in of],
    )
    return long[COLUMNS]


def issues(frame: pd.DataFrame, run: RunReads) -> pd.DataFrame:
    """MEDAL: the share of dialogues with each issue (fewer is better), the overall score."""
    issue_columns = [c for c in frame.columns if c.startswith(ISSUES_PREFIX)]
    overall = Figure.score(load_issue_labels().overall.scale)
    return judged_values(
        frame, "issues", {**dict.fromkeys(issue_columns, Figure("lower")), "overall": overall}
    )


def holistic(frame: pd.DataFrame, run: RunReads) -> pd.DataFrame:
    """DiQAD: the mean quality 0-2."""
    return judged_values(frame, "holistic", {"quality": Figure.score(QUALITY_LEVELS)})


def submetrics(frame: pd.DataFrame, run: RunReads) -> pd.DataFrame:
    """The mean understandability and sensibleness of chatbot turns (a turn is an item, its
    dialogue's seed its unit)."""
    return judged_values(frame, "submetrics", dict.fromkeys(DIMENSIONS, Figure.score(SCORES)))


def unieval(frame: pd.DataFrame, run: RunReads) -> pd.DataFrame:
    """UniEval: the share of self-chats judged human (the pass rate at their full length)."""
    own = frame[frame["protocol"] == "unieval"]
    if "ai_involved" not in own:
        return empty()
    human = own.assign(judged_human=1.0 - own["ai_involved"].astype(float))
    return judged_values(human, "unieval", {"judged_human": Figure("higher")})


def gteval(frame: pd.DataFrame, run: RunReads) -> pd.DataFrame:
    """GTEval: per judgment, whether the self-chat beat (or tied) the human dialogue it was
    seeded from; the chatbot is the self-chat's, whichever order it was shown in."""
    scored = ok(frame, "gteval")
    if scored.empty or "winner" not in scored:
        return empty()
    chats = run.self_chats
    units = run.seed_units
    rows = []
    for judgment in scored.to_dict("records"):
        first, _, second = str(judgment["item"]).partition("|")
        position = "first" if first in chats else "second" if second in chats else None
        if position is None:
            continue
        chat = chats[first if position == "first" else second]
        won = float(judgment["winner"] == position)
        tied = float(judgment["winner"] == "tie")
        for dimension, value in (("win", won), ("win_or_tie", won + tied)):
            rows.append(
                {
                    "protocol": "gteval",
                    "judge": judgment["judge"],
                    "dimension": dimension,
                    "better": "higher",
                    "lowest": 0.0,
                    "highest": 1.0,
                    "chatbot": chat.participants.assistant,
                    "language": chat.language,
                    "unit": units[chat.id],
                    "item": judgment["item"],
                    "value": value,
                }
            )
    return pd.DataFrame(rows, columns=COLUMNS) if rows else empty()


OBSERVATIONS: Registry[ObservationsOf] = Registry(
    "chatbot figures of protocol",
    {
        "issues": "dialbench.figures.observations:issues",
        "holistic": "dialbench.figures.observations:holistic",
        "submetrics": "dialbench.figures.observations:submetrics",
        "unieval": "dialbench.figures.observations:unieval",
        "gteval": "dialbench.figures.observations:gteval",
    },
    group="chatbot_figures",
)


def protocol_observations(frame: pd.DataFrame, run: RunReads) -> dict[str, pd.DataFrame]:
    """Each protocol's observations in the judgment frame, of every protocol with an entry in
    OBSERVATIONS, as its entry gives them."""
    return {
        protocol: OBSERVATIONS.load(protocol)(frame, run)
        for protocol in dict.fromkeys(frame["protocol"])
        if protocol in OBSERVATIONS
    }


def chatbot_observations(parts: Iterable[pd.DataFrame]) -> pd.DataFrame:
    """Protocols' observations as one frame; judgments of human dialogues (no chatbot) are not
    chatbot figures."""
    from dialbench.summary import HUMAN

    found = [part for part in parts if not part.empty]
    if not found:
        return empty()
    together = pd.concat(found, ignore_index=True)
    return together[together["chatbot"] != HUMAN].reset_index(drop=True)


def observations(frame: pd.DataFrame, run: RunReads) -> pd.DataFrame:
    """Every chatbot figure's observations in the judgment frame."""
    return chatbot_observations(protocol_observations(frame, run).values())
