"""The replay protocol: each candidate's replay against the recorded dialogue it replays, in both
orders, shown up to the last reply replayed with their tool turns and the differing turns
marked; what the judge answers becomes first / second / tie; and judged for real through the
runner with a scripted judge, the candidate's figures read from its judgments."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from dialbench.figures.observations import observations
from dialbench.figures.run_reads import RunReads
from dialbench.judge.api import judge
from dialbench.judge.config import JudgeConfig
from dialbench.judge.protocols.replay import ReplayProtocol
from dialbench.judge.registry import get_protocol
from dialbench.judge.settings import JudgeSettings
from dialbench.llm.base import Request
from dialbench.metaeval.diagnostics import position_consistency
from dialbench.replay_records import RECORDED_SIDE as RECORDED
from dialbench.schema import Dialogue, Judgment
from dialbench.store import RunStore
from tests.replays import (
    CANDIDATE,
    EVERY,
    FAILED,
    LAST,
    RECORDED_SIDE,
    RECORDINGS,
    REPLAYS,
    TOOL_LOG,
    TWO_REPLIES,
    replay_run,
)
from tests.scripted_models import ScriptedModel


def protocol(**settings: str) -> ReplayProtocol:
    found = get_protocol("replay", JudgeSettings(**settings))  # type: ignore[arg-type]
    assert isinstance(found, ReplayProtocol)
    return found


def shown(first: Dialogue, second: Dialogue, **settings: str) -> tuple[str, str]:
    """The system prompt and the two conversations as the judge reads them."""
    (question,) = protocol(**settings).questions(first, second)
    return question.messages[0].content, question.messages[1].content


def test_each_finished_replay_meets_its_recording_in_both_orders() -> None:
    judged = protocol()
    dialogues = [*RECORDINGS, *REPLAYS, RECORDED_SIDE]
    pairs = [(a.id, b.id) for a, b in judged.pairs(dialogues)]
    assert pairs == [
        (LAST.id, TOOL_LOG.id),
        (TOOL_LOG.id, LAST.id),
        (EVERY.id, TWO_REPLIES.id),
        (TWO_REPLIES.id, EVERY.id),
    ]  # not the failed replay, nor the recorded side (no candidate's replies)
    assert not judged.judges(FAILED)
    assert judged.judges(TOOL_LOG)
    assert judged.judges(LAST)
    # without the recorded dialogue (--source replay), the recorded side stands in for it
    alone = [(a.id, b.id) for a, b in judged.pairs([LAST, RECORDED_SIDE, EVERY])]
    assert alone == [(LAST.id, RECORDED_SIDE.id), (RECORDED_SIDE.id, LAST.id)]


def test_the_judge_sees_tool_turns_the_differing_turns_marked_and_not_what_came_after() -> None:
    system, conversations = shown(LAST, TOOL_LOG)
    assert system.startswith("You will be given two versions of one conversation")
    assert '">>"' in system
    assert conversations == (
        "Conversation 1:\n"
        "[0] USER: What is the weather in Lisbon?\n"
        '>> [1] Tool call weather({"city": "Lisbon"}) returned: 21 °C, sunny\n'
        ">> [2] CHATBOT: It is 21 °C and sunny in Lisbon.\n\n"
        "Conversation 2:\n"
        "[0] USER: What is the weather in Lisbon?\n"
        '>> [1] Tool call weather({"city": "Lisbon"}) returned: 21 °C, sunny\n'
        ">> [2] CHATBOT: It is 12 °C and raining in Lisbon."
    )  # the user's thanks after the recorded reply is not shown
    assert shown(TOOL_LOG, LAST)[1].startswith("Conversation 1:\n[0] USER: What is the weather")
    assert "12 °C and raining" in shown(TOOL_LOG, LAST)[1].split("Conversation 2:")[0]


def test_under_mode_every_each_version_is_marked_at_its_own_turns() -> None:
    _, conversations = shown(EVERY, TWO_REPLIES)
    replay, recorded = conversations.split("\n\nConversation 2:\n")
    marked = [line.split("]")[0] for line in replay.splitlines() if line.startswith(">> ")]
    assert marked == [">> [1", ">> [3", ">> [4", ">> [5"]  # a search more: its turns shift
    marked = [line.split("]")[0] for line in recorded.splitlines() if line.startswith(">> ")]
    assert marked == [">> [1", ">> [3", ">> [4"]
    assert "[0] USER: Hallo!" in recorded
    assert "[2] USER: Wie ist das Wetter" in recorded
    german, _ = shown(EVERY, TWO_REPLIES, prompt_language="dialogue")
    assert german.startswith("Sie erhalten zwei Fassungen eines Gesprächs")
    assert shown(LAST, TOOL_LOG, prompt_language="dialogue")[0].startswith("You will be given")


def test_the_answer_names_the_better_version_as_first_second_or_tie() -> None:
    judged = protocol()
    answers = {"Conversation 1": "first", "Conversation 2": "second", "Tie": "tie"}
    for choice, winner in answers.items():
        result = judged.result({"replay": {"choice": choice, "reason": " the tool says 21 "}})
        assert result == {"choice": choice, "winner": winner, "reason": "the tool says 21"}
    with pytest.raises(ValidationError):
        judged.result({"replay": {"choice": "Both", "reason": "arena's answer"}})
    (question,) = judged.typical_questions(TOOL_LOG)  # a dry run's: the dialogue beside itself
    assert ">>" not in question.messages[1].content
    assert "Thanks, I'll take an umbrella." in question.messages[1].content


def agrees_with_its_tool(request: Request) -> str:
    """Finds the better version where a marked reply says what the tool returned (21 °C)."""
    first, second = request.messages[-1].content.split("\n\nConversation 2:\n")

    def right(conversation: str) -> bool:
        replies = [line for line in conversation.splitlines() if line.startswith(">> [")]
        return all("12 °C" not in line for line in replies if "CHATBOT:" in line)

    choice = {(True, False): "Conversation 1", (False, True): "Conversation 2"}.get(
        (right(first), right(second)), "Tie"
    )
    return json.dumps({"choice": choice, "reason": "agrees with the tool's result"})


def test_judged_through_the_runner_the_candidate_wins_in_both_orders(tmp_path: Path) -> None:
    run = replay_run(tmp_path / "run", (*RECORDINGS, *REPLAYS, RECORDED_SIDE))
    fair = ScriptedModel("replay-fair", agrees_with_its_tool)
    first = ScriptedModel(
        "replay-first", lambda r: json.dumps({"choice": "Conversation 1", "reason": "first"})
    )
    config = JudgeConfig(protocol="replay", judges=[fair.config(), first.config()])
    summary = judge(config, run, quiet=True)
    assert [tally.ok for tally in summary.judges] == [4, 4]  # 2 replays x 2 orders
    with RunStore.open(run) as store:
        judgments = list(store.records(Judgment, protocol="replay"))
        winners = {
            (j.target.dialogue_id, j.target.other_dialogue_id): (j.result or {})["winner"]
            for j in judgments
            if j.judge_model == fair.spec
        }
        assert winners == {
            (LAST.id, TOOL_LOG.id): "first",
            (TOOL_LOG.id, LAST.id): "second",
            (EVERY.id, TWO_REPLIES.id): "first",
            (TWO_REPLIES.id, EVERY.id): "second",
        }
        reads = RunReads(store)
        found = observations(reads.frame, reads)
    consistency = {row.judge: row.rate for row in position_consistency(judgments)}
    assert consistency == {fair.spec: 1.0, first.spec: 0.0}  # metaeval reads `winner`
    replay = found[found["protocol"] == "replay"]
    # The candidate and the recorded side, each judgment once for each; no failed replay.
    assert set(replay["chatbot"]) == {CANDIDATE, RECORDED}
    rates = replay.groupby(["judge", "chatbot", "dimension"])["value"].mean()
    assert rates[(fair.spec, CANDIDATE, "win")] == 1.0
    assert rates[(fair.spec, RECORDED, "win")] == 0.0
    assert rates[(first.spec, CANDIDATE, "win")] == 0.5  # shown first in one order of two
    assert rates[(first.spec, RECORDED, "win")] == 0.5
    replay = replay[replay["chatbot"] == CANDIDATE]
    units = replay.groupby("language")["unit"].unique()
    assert list(units["en"]) == [f"dialogue:{TOOL_LOG.id}"]  # the recording's seed unit
    assert list(units["de"]) == [f"dialogue:{TWO_REPLIES.id}"]
