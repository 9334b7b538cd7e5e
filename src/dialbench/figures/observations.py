"""What a chatbot figure is made of, per protocol: one observation per judged item and dimension,
placed by judge, chatbot, language and seed unit, with the direction that is better.

An item's value is the mean over its ok samples (an item weighs the same however often it was
judged). A figure (`intervals.py`) is the mean of its observations; a difference between
chatbots (`differences.py`) compares them seed by seed. Which of a protocol's results are
chatbot figures the protocol declares (`chatbot_figures`, `judge/protocol_figures.py`), and
`mean_observations` reads them for every protocol in the registry; a figure that is not a
per-item mean is a function and a line in OBSERVATIONS: the win rates of GTEval's self-chats
against their human dialogues and of replay's candidates against their recordings, both
`contest_observations`. The Arena has its own ratings with intervals (`botchat/elo.py`) and no
figures here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

import pandas as pd

from dialbench.figures.frame import ok, per_item
from dialbench.judge.protocol import JudgeProtocol
from dialbench.judge.registry import PROTOCOLS
from dialbench.registry import Registry
from dialbench.replay_records import RECORDED_SIDE, is_candidate
from dialbench.schema import Dialogue

if TYPE_CHECKING:
    from dialbench.figures.run_reads import RunReads

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


def mean_observations(frame: pd.DataFrame, protocol: type[JudgeProtocol]) -> pd.DataFrame:
    """The item means of a protocol's ok judgments, one row per item and declared figure whose
    field the judgments hold."""
    scored = ok(frame, protocol.name)
    figures = [
        figure
        for figure in protocol.figures_in(list(scored.columns))
        if scored[figure.result_field].notna().any()
    ]
    if scored.empty or not figures:
        return empty()
    values = {}
    for figure in figures:
        value = scored[figure.result_field].astype(float)
        values[figure.dimension] = 1.0 - value if figure.complement else value
    dimensions = list(values)
    long = per_item(scored.assign(**values), dimensions).melt(
        ["judge", "item", "chatbot", "language", "unit"], dimensions, "dimension", "value"
    )
    long = long.dropna(subset="value")
    of = {figure.dimension: figure for figure in figures}
    placed = [of[dimension] for dimension in long["dimension"]]
    long = long.assign(
        protocol=protocol.name,
        better=[f.better for f in placed],
        lowest=[f.lowest for f in placed],
        highest=[f.highest for f in placed],
    )
    return long[COLUMNS]


def contest_observations(
    frame: pd.DataFrame,
    protocol: str,
    contestants: Mapping[str, Dialogue],
    units: Mapping[str, str],
) -> pd.DataFrame:
    """Per ok judgment of a pair protocol, whether the contestant shown in it won (`win`) or
    won or tied (`win_or_tie`): one observation a judgment, whichever order the contestant was
    shown in, placed by its chatbot, language and seed unit. A judgment of no contestant counts
    for none."""
    scored = ok(frame, protocol)
    if scored.empty or "winner" not in scored:
        return empty()
    rows = []
    for judgment in scored.to_dict("records"):
        first, _, second = str(judgment["item"]).partition("|")
        position = "first" if first in contestants else "second" if second in contestants else None
        if position is None:
            continue
        shown = contestants[first if position == "first" else second]
        won = float(judgment["winner"] == position)
        tied = float(judgment["winner"] == "tie")
        for dimension, value in (("win", won), ("win_or_tie", won + tied)):
            rows.append(
                {
                    "protocol": protocol,
                    "judge": judgment["judge"],
                    "dimension": dimension,
                    "better": "higher",
                    "lowest": 0.0,
                    "highest": 1.0,
                    "chatbot": shown.participants.assistant,
                    "language": shown.language,
                    "unit": units[shown.id],
                    "item": judgment["item"],
                    "value": value,
                }
            )
    return pd.DataFrame(rows, columns=COLUMNS) if rows else empty()


def gteval(frame: pd.DataFrame, run: RunReads) -> pd.DataFrame:
    """GTEval: per judgment, whether the self-chat beat (or tied) the human dialogue it was
    seeded from; the chatbot is the self-chat's, whichever order it was shown in."""
    return contest_observations(frame, "gteval", run.self_chats, run.seed_units)


def replay(frame: pd.DataFrame, run: RunReads) -> pd.DataFrame:
    """Replay: per judgment, whether the candidate's replay beat (or tied) the recorded
    dialogue it replays, whichever order it was shown in; and the same of the recorded side,
    as chatbot `recorded` (the recorded dialogue itself where it was judged instead of the
    side stored beside the replays), so `compare -c recorded -c CANDIDATE` pairs the two seed
    by seed."""
    candidates = {id_: d for id_, d in run.replays.items() if is_candidate(d)}
    recorded = {id_: d for id_, d in run.replays.items() if not is_candidate(d)}
    side = {"assistant": RECORDED_SIDE}
    for id_ in {str(d.metadata["replay_of"]) for d in candidates.values()} - set(recorded):
        if (original := run.store.get(Dialogue, id_)) is not None:
            named = original.participants.model_copy(update=side)
            recorded[id_] = original.model_copy(update={"participants": named})
    return pd.concat(
        [
            contest_observations(frame, "replay", contestants, run.seed_units)
            for contestants in (candidates, recorded)
        ],
        ignore_index=True,
    )


OBSERVATIONS: Registry[ObservationsOf] = Registry(
    "chatbot figures of protocol",
    {
        "gteval": "dialbench.figures.observations:gteval",
        "replay": "dialbench.figures.observations:replay",
    },
    group="chatbot_figures",
)


def protocol_observations(frame: pd.DataFrame, run: RunReads) -> dict[str, pd.DataFrame]:
    """Each protocol's observations in the judgment frame: its entry's in OBSERVATIONS, or
    those it declares; a protocol unknown here (a plugin no longer installed) has none."""
    found = {}
    for protocol in dict.fromkeys(frame["protocol"]):
        if protocol in OBSERVATIONS:
            found[protocol] = OBSERVATIONS.load(protocol)(frame, run)
        elif protocol in PROTOCOLS:
            found[protocol] = mean_observations(frame, PROTOCOLS.load(protocol))
    return found


def chatbot_observations(parts: Iterable[pd.DataFrame]) -> pd.DataFrame:
    """Protocols' observations as one frame; judgments of human dialogues (no chatbot) are not
    chatbot figures."""
    from dialbench.store_contents import HUMAN

    found = [part for part in parts if not part.empty]
    if not found:
        return empty()
    together = pd.concat(found, ignore_index=True)
    return together[together["chatbot"] != HUMAN].reset_index(drop=True)


def observations(frame: pd.DataFrame, run: RunReads) -> pd.DataFrame:
    """Every chatbot figure's observations in the judgment frame."""
    return chatbot_observations(protocol_observations(frame, run).values())
