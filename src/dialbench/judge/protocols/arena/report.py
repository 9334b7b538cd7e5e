"""The BotChat Arena part of the report, from the arena judgments alone: the verdicts per judge
and how often a verdict flips when the two conversations swap places. Ratings with intervals
and win matrices need the dialogues' ChatSEEDs and lengths: `dialbench arena RUN` writes them
to RUN/botchat."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from dialbench.arena.analysis import CONSISTENCY_DEFINITION, order_consistency
from dialbench.judge.protocols.arena import CHOICES, OUTCOME_DEFINITION, ArenaProtocol
from dialbench.report.sections import Section, table
from dialbench.report.tables import ok
from dialbench.store import RunStore


def verdict_counts(frame: pd.DataFrame) -> pd.DataFrame:
    """Per judge: judgments, unscored, and each choice with its share of the scored ones."""
    rows = []
    for judge, part in frame[frame["protocol"] == ArenaProtocol.name].groupby("judge", sort=True):
        scored = ok(part)
        row: dict[str, object] = {
            "judge": judge,
            "judgments": len(part),
            "unscored": len(part) - len(scored),
        }
        for choice in CHOICES:
            count = int((scored["choice"] == choice).sum()) if "choice" in scored else 0
            row[choice] = count
            row[f"{choice} share"] = count / len(scored) if len(scored) else None
        rows.append(row)
    return pd.DataFrame(rows)


def frame_verdicts(frame: pd.DataFrame) -> pd.DataFrame:
    """Scored arena judgments as (judge, first, second, winner), the pair read from the item."""
    scored = ok(frame, ArenaProtocol.name)
    if scored.empty or "winner" not in scored:
        return pd.DataFrame(columns=["judge", "first", "second", "winner"])
    pair = scored["item"].str.split("|", n=1, regex=False, expand=True)
    return pd.DataFrame(
        {"judge": scored["judge"], "first": pair[0], "second": pair[1], "winner": scored["winner"]}
    )


def sections(frame: pd.DataFrame, folder: Path, store: RunStore) -> list[Section]:
    counts = verdict_counts(frame)
    if counts.empty:
        return []
    consistency = order_consistency(frame_verdicts(frame), by=("judge",))
    return [
        Section(
            key="arena",
            title="BotChat Arena verdicts and position consistency per judge",
            note=f"{OUTCOME_DEFINITION} {CONSISTENCY_DEFINITION} Bootstrap ELO, Bradley–Terry "
            "ratings with 95 % intervals and win / tie / lose matrices per dialogue length: "
            "`dialbench arena RUN` writes them to RUN/botchat.",
            tables=[
                table(folder, "arena_verdicts", "Verdicts per judge", counts),
                table(folder, "arena_order_consistency", "Order flips per judge", consistency),
            ],
        )
    ]
