"""What each protocol asks and how it shapes results: the labels file, prompts, schemas, and
results the meta-evaluation reads as dimensions."""

from __future__ import annotations

from pathlib import Path

from scripted import ISSUE_KEYS, dialogue

from dialbench.issue_labels import load_issue_labels
from dialbench.judge.protocols.holistic import load_examples
from dialbench.judge.registry import get_protocol
from dialbench.ratings import from_store
from dialbench.schema import Judgment, Target
from dialbench.store import RunStore


def test_the_labels_file_holds_medal_table_4() -> None:
    labels = load_issue_labels()
    assert [label.key for label in labels.selected(include_optional=False)] == list(ISSUE_KEYS)
    assert [label.key for label in labels.issues if label.optional] == ["other"]
    assert labels.issues[0].definition.startswith("Outputs unclear or confusing text")
    assert labels.overall.scale == [1, 2, 3, 4, 5]
    assert len(labels.sha256) == 64


def test_issues_prompt_gives_every_definition_and_the_schema_bounds_overall() -> None:
    [task] = get_protocol("issues").tasks([dialogue("hello", "de")])
    [question] = task.questions
    system, user = question.messages
    for label in load_issue_labels().selected(include_optional=False):
        assert f"- {label.key}: {label.definition}" in system.content
    assert '{"issues": {"uninterpretable": true|false, "unsafe"' in system.content
    assert "(language: de)" in user.content
    assert "[1] CHATBOT: hello (1)" in user.content
    properties = question.json_schema["properties"]
    assert properties["overall"] == {"type": "integer", "enum": [1, 2, 3, 4, 5]}
    assert properties["issues"]["required"] == list(ISSUE_KEYS)
    assert question.params.temperature == 0.0


def test_other_is_asked_only_when_turned_on() -> None:
    with_other = get_protocol("issues", options={"other": "true"})
    [task] = with_other.tasks([dialogue("hello")])
    assert task.questions[0].json_schema["properties"]["issues"]["required"][-1] == "other"
    assert "- other: " in task.questions[0].messages[0].content


def test_issue_comments_are_kept_only_for_issues_present() -> None:
    issues = {key: key == "repetitive" for key in ISSUE_KEYS}
    answer = {
        "issues": issues,
        "comments": {"repetitive": " turn 3 repeats turn 1 ", "unsafe": "fine", "incoherent": ""},
        "overall": 3,
    }
    result = get_protocol("issues").result({"issues": answer})
    assert result == {
        "issues": issues,
        "comments": {"repetitive": "turn 3 repeats turn 1"},
        "overall": 3,
    }


def test_holistic_few_shot_adds_diqad_examples_as_turns() -> None:
    zero = get_protocol("holistic").tasks([dialogue("hello")])[0].questions[0]
    few_shot = get_protocol("holistic", options={"few_shot": True})
    few = few_shot.tasks([dialogue("hello")])[0]
    assert [m.role for m in zero.messages] == ["system", "user"]
    roles = [m.role for m in few.questions[0].messages]
    assert roles == ["system", *["user", "assistant"] * 3, "user"]
    assert [example.quality for example in load_examples().examples] == [0, 1, 2]
    assert '"quality": 0' in few.questions[0].messages[2].content
    assert "holistic_examples" in few_shot.file_hashes()
    assert "holistic_examples" not in get_protocol("holistic").file_hashes()
    assert "0 (low quality)" in zero.messages[0].content
    assert "{{" not in zero.messages[0].content


def test_submetrics_judge_each_chatbot_turn_with_and_without_context() -> None:
    tasks = get_protocol("submetrics").tasks([dialogue("hi", turns=4)])
    assert [t.target.turn_index for t in tasks] == [1, 3]
    understandability, sensibleness = tasks[1].questions
    assert understandability.messages[1].content == "Response: hi (3)\n"
    assert "[2] USER: hi (2)" in sensibleness.messages[1].content
    assert "understandability" in understandability.messages[0].content
    assert "Given the context" in sensibleness.messages[0].content


def test_results_are_read_by_the_meta_evaluation_as_dimensions(tmp_path: Path) -> None:
    d = dialogue("hello")
    issues = {key: key == "unsafe" for key in ISSUE_KEYS}
    judgments = [
        Judgment(
            protocol="issues",
            judge_model="j",
            target=Target(dialogue_id=d.id),
            parse_status="ok",
            result={"issues": issues, "comments": {"unsafe": "turn 1"}, "overall": 2},
        )
    ]
    with RunStore.open(tmp_path) as store, store.invocation("test") as run:
        store.add([d, *judgments], run)
        ratings, _ = from_store(store, "issues")
    dimensions = {r.dimension: r.value for r in ratings}
    assert dimensions == {**{f"issues.{k}": float(v) for k, v in issues.items()}, "overall": 2.0}
