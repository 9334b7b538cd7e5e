"""The replay part of the report (`dialbench replay`, judged under the replay protocol): per
judge, candidate and language, the share of judgments the candidate's replay wins, and wins or
ties, against the recorded dialogue it replays, each with its 95% interval over seed units (the
replay protocol's chatbot figures, `figures/observations.py`); the replayed contexts side by
side, the user's last turn, the recorded reply and the candidate's with the tool calls before
each, and the verdicts of both orders; and the replays that ended in an error, which are judged
in no order and count in no figure."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import pandas as pd

from dialbench.judge.protocols.replay import OUTCOME_DEFINITION, ReplayProtocol
from dialbench.replay_records import (
    is_candidate,
    recorded_turns,
    replay_of,
    replayed_turns,
    reply_start,
)
from dialbench.report.chatbot_figures import figure_table, interval_cells, protocol_figures
from dialbench.report.context import ReportContext
from dialbench.report.section import ReportTable, Section, write_table
from dialbench.safe_text import short_text
from dialbench.schema import Dialogue, Turn

SHOWN_CONTEXTS = 50  # rows of the side-by-side table (and of the errors' table)
TEXT_CHARS = 300  # of a turn in a cell
TOOL_CHARS = 200  # of the tool calls before a reply, together
RATES = {"win_rate": "win", "win_or_tie_rate": "win_or_tie"}
WINNERS = ("first", "second", "tie")

Verdicts = dict[str, dict[str, list[str]]]  # replay id -> order shown -> "judge: outcome"


def verdicts(frame: pd.DataFrame, candidates: dict[str, Dialogue]) -> Verdicts:
    """Per candidate's replay and the order it was shown in ("first", "second"): each
    judgment's verdict as `judge: candidate | recorded | tie | unscored`, in the frame's order."""
    found: Verdicts = defaultdict(lambda: defaultdict(list))
    for row in frame.to_dict("records"):
        first, _, second = str(row["item"]).partition("|")
        position = "first" if first in candidates else "second" if second in candidates else None
        if position is None:
            continue
        winner = row.get("winner") if row["status"] == "ok" else None
        if winner not in WINNERS:
            outcome = "unscored"
        elif winner == "tie":
            outcome = "tie"
        else:
            outcome = "candidate" if winner == position else "recorded"
        found[first if position == "first" else second][position].append(
            f"{row['judge']}: {outcome}"
        )
    return found


def _last_user_turn(turns: Sequence[Turn], reply: int) -> str:
    return next((t.text for t in reversed(turns[:reply]) if t.role == "user"), "")


def _tools_before(turns: Sequence[Turn], reply: int) -> str:
    """The tool calls just before a reply, as `name(arguments) → result`, in the order made."""
    calls = [
        f"{turn.tool.name}({turn.tool.shown_arguments()}) → {turn.text}"
        for turn in turns[reply_start(turns, reply) : reply]
        if turn.tool is not None
    ]
    return short_text(" | ".join(calls), TOOL_CHARS)


def _reply(turns: Sequence[Turn], index: int) -> str:
    return short_text(turns[index].text, TEXT_CHARS) if index < len(turns) else "-"


def side_by_side(
    context: ReportContext, candidates: dict[str, Dialogue], judged: Verdicts
) -> pd.DataFrame:
    """A row per replayed context of the judged replays, in the order stored: the recorded
    dialogue's turn, the user's last turn before it, the recorded and the candidate's reply with
    the tool calls before each, and the verdicts of both orders (of the whole replay: under
    mode `every`, each of its contexts shows the same)."""
    rows = []
    for replay in candidates.values():
        if replay.id not in judged:
            continue
        recorded_id = replay_of(replay)
        recorded = context.store.get(Dialogue, recorded_id) if recorded_id else None
        recorded_side = recorded.turns if recorded is not None else []
        shown = judged[replay.id]
        pairs = list(zip(replayed_turns(replay), recorded_turns(replay), strict=False))
        for number, (reply, recorded_at) in enumerate(pairs, 1):
            rows.append(
                {
                    "replay": replay.id,
                    "candidate": replay.participants.assistant,
                    "language": replay.language,
                    "recorded": recorded_id,
                    "context": f"{number} of {len(pairs)}",
                    "recorded_turn": recorded_at,
                    "user_turn": short_text(_last_user_turn(replay.turns, reply), TEXT_CHARS),
                    "recorded_tools": _tools_before(recorded_side, recorded_at),
                    "recorded_reply": _reply(recorded_side, recorded_at),
                    "candidate_tools": _tools_before(replay.turns, reply),
                    "candidate_reply": _reply(replay.turns, reply),
                    "candidate_shown_first": "; ".join(shown["first"]) or "-",
                    "candidate_shown_second": "; ".join(shown["second"]) or "-",
                }
            )
    return pd.DataFrame(rows)


def failed_replays(candidates: dict[str, Dialogue]) -> pd.DataFrame:
    """The candidates' replays that ended in an error, with how far each got and why."""
    rows = [
        {
            "replay": replay.id,
            "candidate": replay.participants.assistant,
            "language": replay.language,
            "recorded": replay_of(replay),
            "replies_before_the_error": len(replayed_turns(replay)),
            "error": short_text(str(replay.metadata.get("error") or "(not recorded)"), TEXT_CHARS),
        }
        for replay in candidates.values()
        if replay.end_reason == "error"
    ]
    return pd.DataFrame(rows)


def _left_out(shown: int, total: int, what: str) -> str:
    if total <= shown:
        return f"All {total} {what} are shown."
    return f"The first {shown} of {total} {what} are shown ({total - shown} left out)."


def sections(frame: pd.DataFrame, context: ReportContext) -> list[Section]:
    candidates = {id_: d for id_, d in context.replays.items() if is_candidate(d)}
    folder = context.folder
    tables: list[ReportTable] = []
    notes = [OUTCOME_DEFINITION]
    figures = figure_table(protocol_figures(context, ReplayProtocol.name), RATES, "judgments")
    if not figures.empty:
        notes.append(
            "win_rate = the candidate's wins / judgments, win_or_tie_rate = (wins + ties) / "
            "judgments, over the scored judgments of both orders, each with its 95% interval "
            "[low–high] over the seed units (a replay's is its recorded dialogue's). The rows "
            "of chatbot `recorded` are the same judgments seen from the recorded side: its "
            "wins are the candidate's losses."
        )
        tables.append(
            write_table(
                folder,
                "replay",
                "Per judge, candidate and language, both orders",
                figures,
                interval_cells(figures, rates=list(RATES)),
            )
        )
    contexts = side_by_side(context, candidates, verdicts(frame, candidates))
    if not contexts.empty:
        notes.append(
            "Side by side: each replayed context, the user's last turn before it, the recorded "
            "reply and the candidate's with the tool calls just before each (name(arguments) → "
            "result), and each judge's verdict with the candidate's version shown first and "
            "shown second: the version it found better, or a tie; a verdict is of the whole "
            f"replay. {_left_out(SHOWN_CONTEXTS, len(contexts), 'replayed contexts judged')}"
        )
        tables.append(
            write_table(
                folder,
                "replay_contexts",
                "Recorded and candidate replies, side by side",
                contexts.head(SHOWN_CONTEXTS),
            )
        )
    failed = failed_replays(candidates)
    if not failed.empty:
        notes.append(
            f"{len(failed)} of {len(candidates)} replays ended in an error (the candidate could "
            "not complete a context): they are judged in no order and count in no figure. "
            f"{_left_out(SHOWN_CONTEXTS, len(failed), 'failed replays')}"
        )
        tables.append(
            write_table(
                folder,
                "replay_errors",
                "Replays that ended in an error",
                failed.head(SHOWN_CONTEXTS),
            )
        )
    if not tables:
        return []
    return [
        Section(
            key="replay",
            title="Replay: the candidate's replies against the recorded ones",
            note=" ".join(notes),
            tables=tables,
        )
    ]
