"""Tool turns in what judges read: a numbered line of their own, never an item to judge, left out
of BotChat's two-speaker chats, and judged (a reply against its tool's result) only where the
issues protocol opts in; a dialogue without them is asked exactly as before."""

from __future__ import annotations

import json
from pathlib import Path

from scripted import ISSUE_KEYS
from scripted import dialogue as plain_dialogue

from dialbench.judge.api import judge
from dialbench.judge.config import JudgeConfig
from dialbench.judge.numbered_transcript import numbered_transcript
from dialbench.judge.registry import get_protocol
from dialbench.llm.base import Completion, Request
from dialbench.schema import Judgment, ToolUse, Turn, Usage
from dialbench.store import RunStore
from tests.scripted_models import ScriptedModel
from tests.tool_dialogues import ASSISTANT_TURNS, EN, TOOL_DIALOGUES, TOOL_LINES, ZH

TOOL_KEY = "contradicts_tool"


def test_a_tool_turn_is_a_numbered_line_of_its_own() -> None:
    for d in TOOL_DIALOGUES:
        lines = numbered_transcript(d.turns).splitlines()
        assert [line for line in lines if "Tool call" in line or "Retrieved" in line] == (
            TOOL_LINES[d.id]
        )
    assert (
        numbered_transcript(EN.turns).splitlines()[3]
        == "[3] CHATBOT: It is 21 °C and sunny in Lisbon."
    )


def test_a_long_result_is_cut_and_says_where_and_an_empty_one_says_so() -> None:
    raw = ToolUse(name="sql", arguments="SELECT * FROM bookings")
    long = Turn(role="tool", text="é" * 5000, tool=raw)
    line = numbered_transcript([long])
    assert line.startswith("[0] Tool call sql(SELECT * FROM bookings) returned: " + "é" * 2000)
    assert line.endswith("é… [cut at 2,000 of 5,000 characters]")
    empty = Turn(role="tool", text="", tool=ToolUse(name="ping"))
    assert numbered_transcript([empty]) == "[0] Tool call ping() returned: (no result in the log)"


def test_turn_protocols_judge_the_chatbot_turns_and_show_tool_results_in_their_context() -> None:
    tasks = get_protocol("submetrics").tasks(list(TOOL_DIALOGUES))
    judged: dict[str, list[int | None]] = {}
    for task in tasks:
        judged.setdefault(task.target.dialogue_id, []).append(task.target.turn_index)
    assert judged == ASSISTANT_TURNS
    last = get_protocol("submetrics", options={"turns": "last"}).tasks([ZH])
    assert [t.target.turn_index for t in last] == [4]
    _, sensibleness = tasks[1].questions
    assert TOOL_LINES[EN.id][0] in sensibleness.messages[1].content


def test_botchat_protocols_read_the_utterances_only() -> None:
    [task] = get_protocol("unieval", options={"include": "all"}).tasks([ZH])
    [question] = task.questions
    shown = question.messages[-1].content
    assert shown.count("<chat_end>") == 3
    assert shown.splitlines()[2] == "A: 北京今天12度，多云，空气质量良好。 <chat_end>"
    assert "12 °C" not in shown
    assert "kb_search" not in shown
    assert question.json_schema["anyOf"][1]["properties"]["index"]["enum"] == [1, 2, 3]


def test_a_dialogue_without_tool_turns_is_asked_as_before_under_the_option() -> None:
    plain = [plain_dialogue("hello", language) for language in ("en", "zh", "de")]
    default, opted = get_protocol("issues"), get_protocol("issues", options={"tool_results": True})
    assert default.tasks(plain) == opted.tasks(plain)
    assert default.options.configuration() == {"other": False}  # so fingerprints stay
    assert "tool_issue_labels" not in default.file_hashes()
    assert "tool_issue_labels" in opted.file_hashes()
    [with_tools] = default.tasks([EN])
    assert TOOL_KEY not in with_tools.questions[0].messages[0].content
    assert TOOL_LINES[EN.id][0] in with_tools.questions[0].messages[1].content


def issues_judge() -> ScriptedModel:
    """Answers every label it is asked, flagging the tool label whenever it is asked."""

    def answer(request: Request) -> Completion:
        asked = TOOL_KEY in request.messages[0].content
        issues = dict.fromkeys(ISSUE_KEYS, False) | ({TOOL_KEY: True} if asked else {})
        comments = {TOOL_KEY: "turn 3 says sunny, the tool said so too"} if asked else {}
        text = json.dumps({"issues": issues, "comments": comments, "overall": 4})
        return Completion(text=text, finish_reason="stop", usage=Usage())

    return ScriptedModel("tool-issues", answer, structured_output="json_object")


def test_the_tool_label_reaches_the_judge_only_when_opted_in_and_only_with_tool_turns(
    tmp_path: Path,
) -> None:
    plain = plain_dialogue("no tools here", "de")
    with RunStore.open(tmp_path) as store, store.invocation("import") as run:
        store.add([*TOOL_DIALOGUES, plain], run)
    model = issues_judge()

    def judge_with(options: dict[str, bool]) -> list[Request]:
        before = len(model.requests)
        config = JudgeConfig(protocol="issues", judges=[model.config()], options=options)
        judge(config, tmp_path, quiet=True)
        return model.requests[before:]

    by_default = judge_with({})
    assert len(by_default) == 3
    assert not any(TOOL_KEY in r.messages[0].content for r in by_default)
    opted = judge_with({"tool_results": True})
    # The plain dialogue's question is the same as by default: answered from the cache.
    assert len(opted) == 2
    assert all(TOOL_KEY in r.messages[0].content for r in opted)
    assert all("Tool call" in r.messages[1].content for r in opted)
    with RunStore.open(tmp_path) as store:
        judgments = list(store.records(Judgment))
    assert len(judgments) == 6
    flagged = {
        j.target.dialogue_id
        for j in judgments
        if j.result is not None and TOOL_KEY in j.result["issues"]  # type: ignore[operator]
    }
    assert flagged == {EN.id, ZH.id}
