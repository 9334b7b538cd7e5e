"""`dialbench replay`: contexts, tools answered from the recording, the recorded side and the
candidate's stored beside the recorded dialogue and paired with it, resumed without a call."""

from __future__ import annotations

import json
from pathlib import Path

from dialbench.llm.base import Completion, ModelError, Request, ToolCall
from dialbench.replay.api import replay
from dialbench.replay.candidate import prefix_messages
from dialbench.replay.config import ReplayConfig
from dialbench.replay.contexts import contexts
from dialbench.replay.recorded_tools import NOT_RECORDED, recorded_answer, tool_definitions
from dialbench.replay_records import RECORDED_SIDE as RECORDED
from dialbench.schema import Dialogue
from dialbench.store import RunStore
from tests.scripted_models import ScriptedModel
from tests.tool_dialogues import EN, ZH


def test_contexts_take_a_reply_with_the_tool_turns_before_it() -> None:
    every = contexts(ZH, "every")
    assert [(c.start, c.reply) for c in every] == [(1, 1), (2, 4)]
    assert [t.role for t in every[1].recorded(ZH)] == ["tool", "tool", "assistant"]
    assert contexts(ZH, "last") == every[-1:]


def test_tools_are_derived_from_the_recorded_calls_and_answered_from_them() -> None:
    (weather, search) = tool_definitions(ZH.turns)
    assert weather.name == "weather"
    assert weather.parameters["properties"] == {"city": {"type": "string"}}
    assert search.name == "kb_search"
    recorded = contexts(ZH, "last")[0].recorded(ZH)
    same = ToolCall(id="c1", name="weather", arguments=json.dumps({"city": "北京"}))
    other = ToolCall(id="c2", name="weather", arguments=json.dumps({"city": "上海"}))
    assert recorded_answer(same, recorded) == "12 °C，多云"
    assert recorded_answer(other, recorded) is None


def test_the_prefix_shows_recorded_calls_in_the_openai_shape() -> None:
    prefix = EN.turns[:3]
    shown = prefix_messages(prefix, with_tools=True)
    assert [m.role for m in shown] == ["user", "assistant", "assistant", "tool"]
    assert shown[2].tool_calls[0].id == "call_1" == shown[3].tool_call_id
    assert [m.role for m in prefix_messages(prefix, with_tools=False)] == ["user", "assistant"]


def _candidate(request: Request) -> str | Completion:
    """Calls the weather tool once, as recorded in Chinese and otherwise for another city,
    then answers with what the tool said."""
    last = request.messages[-1]
    if last.role == "tool":
        return f"Reply from the tool: {last.content}"
    city = "北京" if any("北京" in m.content for m in request.messages) else "Paris"
    call = ToolCall(id="call_a", name="weather", arguments=json.dumps({"city": city}))
    return Completion(text="", tool_calls=[call], model="scripted:replay-candidate")


def _run_with(tmp_path: Path, dialogues: list[Dialogue]) -> Path:
    run = tmp_path / "run"
    with RunStore.open(run) as store, store.invocation("test") as record:
        store.add(dialogues, record)
    return run


def test_a_replay_is_stored_beside_its_recorded_side_and_resumes_without_calls(
    tmp_path: Path,
) -> None:
    run = _run_with(tmp_path, [EN, ZH])
    script = ScriptedModel("replay-candidate", _candidate)
    config = ReplayConfig(candidate=script.config(), mode="last")
    summary = replay(config, run, quiet=True)
    assert (summary.planned, summary.replayed, summary.failures.count) == (2, 2, 0)
    assert (summary.tool_calls, summary.tool_calls_not_recorded) == (2, 1)
    with RunStore.open(run) as store:
        replays = list(store.records(Dialogue, source="replay"))
        units = store.seed_units()
    by_side = {(d.metadata["replay_of"], d.participants.assistant): d for d in replays}
    candidate_zh = by_side[(ZH.id, script.spec)]
    recorded_zh = by_side[(ZH.id, RECORDED)]
    assert [t.text for t in recorded_zh.turns] == [t.text for t in ZH.turns]
    assert [t.role for t in candidate_zh.turns] == ["user", "assistant", "tool", "assistant"]
    assert candidate_zh.turns[2].text == "12 °C，多云"
    assert candidate_zh.turns[-1].text == "Reply from the tool: 12 °C，多云"
    assert candidate_zh.metadata["replayed_turns"] == [3]
    assert candidate_zh.metadata["recorded_turns"] == [4]
    candidate_en = by_side[(EN.id, script.spec)]
    assert candidate_en.turns[-2].text == NOT_RECORDED
    assert candidate_en.metadata["tool_calls_not_recorded"] == 1
    assert units[candidate_zh.id] == units[recorded_zh.id] == units[ZH.id]
    assert units[candidate_en.id] != units[candidate_zh.id]
    asked = len(script.requests)
    again = replay(config, run, quiet=True)
    assert (again.already_stored, again.replayed, len(script.requests)) == (2, 0, asked)


def test_mode_every_replays_each_reply_on_its_recorded_prefix(tmp_path: Path) -> None:
    run = _run_with(tmp_path, [EN])
    script = ScriptedModel("replay-every", lambda request: f"reply {len(request.messages)}")
    replay(ReplayConfig(candidate=script.config(), mode="every"), run, quiet=True)
    with RunStore.open(run) as store:
        (candidate,) = store.records(Dialogue, source="replay", assistant_model=script.spec)
    # The first reply answers the user alone; the second the recorded prefix without the
    # recorded call before the reply it replaces: that call is the candidate's to make or not.
    assert [t.text for t in candidate.turns] == [EN.turns[0].text, "reply 1", "reply 2"]
    assert candidate.metadata["replayed_turns"] == [1, 2]
    assert candidate.metadata["recorded_turns"] == [1, 3]
    assert [m.role for m in script.requests[1].messages] == ["user", "assistant"]


def test_a_failed_reply_is_stored_as_error_and_retried_by_the_next_run(tmp_path: Path) -> None:
    run = _run_with(tmp_path, [EN])
    failing = {"now": True}

    def answer(request: Request) -> str:
        if failing["now"]:
            raise ModelError("HTTP 500: the candidate is down")
        return "fine"

    script = ScriptedModel("replay-failing", answer)
    config = ReplayConfig(candidate=script.config(), mode="last")
    first = replay(config, run, quiet=True)
    assert first.failures.count == 1
    with RunStore.open(run) as store:
        (stored,) = store.records(Dialogue, source="replay", assistant_model=script.spec)
    assert stored.end_reason == "error"
    assert "HTTP 500" in str(stored.metadata["error"])
    failing["now"] = False
    second = replay(config, run, quiet=True)
    assert (second.already_stored, second.replayed, second.failures.count) == (0, 1, 0)


def test_a_candidate_still_calling_tools_after_the_last_round_is_judged_as_it_is(
    tmp_path: Path,
) -> None:
    run = _run_with(tmp_path, [ZH])
    call = ToolCall(id="c", name="weather", arguments=json.dumps({"city": "北京"}))
    script = ScriptedModel("replay-looping", lambda _: Completion(text="", tool_calls=[call]))
    config = ReplayConfig(candidate=script.config(), max_tool_rounds=1)
    summary = replay(config, run, quiet=True)
    assert (summary.unanswered, summary.failures.count, summary.tool_calls) == (1, 0, 1)
    with RunStore.open(run) as store:
        (stored,) = store.records(Dialogue, source="replay", assistant_model=script.spec)
    assert stored.end_reason == "natural_end"
    assert stored.metadata["unanswered"] == 1
    assert [(t.role, t.text) for t in stored.turns[2:]] == [
        ("tool", "12 °C，多云"),
        ("assistant", ""),
    ]
    assert replay(config, run, quiet=True).already_stored == 1
