"""Few-shot from reviewed examples (`few_shot=N`): the humans' labels aggregated per target, the
stated rule that chooses N per language, the examples as prior turns of each question, their
ids and content in the judgment's configuration, and the dialogues they come from never judged
under them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from scripted import ISSUE_KEYS, dialogue, issues_answer

from dialbench.errors import DialbenchError
from dialbench.hashing import sha256_text
from dialbench.judge.api import judge
from dialbench.judge.config import JudgeConfig
from dialbench.judge.few_shot import (
    EXAMPLES_KEY,
    HumanExample,
    Shot,
    choose,
    examples_in_run,
    human_examples,
    nearest,
)
from dialbench.judge.judging import JudgeResult, judge_configuration
from dialbench.judge.protocol import JudgeProtocol
from dialbench.judge.protocols.issues import IssuesProtocol
from dialbench.judge.protocols.submetrics import SubmetricsProtocol
from dialbench.llm.base import Message
from dialbench.llm.runner import Runner
from dialbench.pipeline.config import PipelineConfig, load_pipeline
from dialbench.pipeline.execute import run_pipeline
from dialbench.pipeline.plan import plan_pipeline
from dialbench.pipeline.stage import ANNOTATIONS, text_tokens
from dialbench.pipeline.stages.judge import JudgeStage
from dialbench.schema import Annotation, Dialogue, JudgeConfiguration, Judgment, Target
from dialbench.store import RunStore
from dialbench.web.review import ReviewIn, judged_dimensions, review_annotations
from tests.scripted_models import ScriptedModel


def shot(example_id: str, value: float) -> Shot:
    return Shot(
        example_id=example_id,
        dialogue_id=f"d-{example_id}",
        value=value,
        item=Message(role="user", content=example_id),
        answer=Message(role="assistant", content="{}"),
    )


def by_hash(*ids: str) -> list[str]:
    return sorted(ids, key=sha256_text)


def test_the_rule_spreads_over_the_values_from_the_ends_inward() -> None:
    shots = [shot(f"a-{score}-{i}", score) for score in (1, 2, 3, 4, 5) for i in range(3)]
    assert [s.value for s in choose(shots, 2)] == [1, 5]
    assert [s.value for s in choose(shots, 5)] == [1, 5, 2, 4, 3]
    assert [s.value for s in choose(shots, 7)] == [1, 5, 2, 4, 3, 1, 5]
    first_ones = by_hash("a-1-0", "a-1-1", "a-1-2")[:2]
    assert [s.example_id for s in choose(shots, 7) if s.value == 1] == first_ones
    assert choose(list(reversed(shots)), 7) == choose(shots, 7)  # the order given is no matter
    assert len(choose(shots[:2], 4)) == 2  # fewer than N: all there are


def test_several_annotators_make_one_example() -> None:
    d = dialogue("rated", turns=4)
    turn = Target(dialogue_id=d.id, turn_index=1)

    def annotation(annotator: str, complete: bool = True, **labels: Any) -> Annotation:
        return Annotation(annotator_id=annotator, target=turn, labels=labels, complete=complete)

    annotations = [
        annotation("ann", sensibleness=3, issues={"unsafe": True}, breakdown="X"),
        annotation("bob", sensibleness=4, issues={"unsafe": False}),
        annotation("cy", sensibleness=1, complete=False),  # still at it: left out
        Annotation(annotator_id="dee", target=Target(dialogue_id="elsewhere"), labels={"x": 1}),
    ]
    [example] = human_examples(annotations, {d.id: d})
    assert example.id == "+".join(sorted(a.id for a in annotations[:2]))
    assert example.labels == {"sensibleness": 3.5, "issues.unsafe": 0.5}  # no strings
    assert nearest(3.5, [1, 2, 3, 4, 5]) == 4  # halves up
    assert nearest(0.2, [1, 2, 3, 4, 5]) == 1
    answer = SubmetricsProtocol().example_answer("sensibleness", example)
    assert answer is not None
    assert answer.answer == {"score": 4}


def labelled(
    d: Dialogue, turn: int | None, annotator: str = "reviewer", **labels: Any
) -> Annotation:
    return Annotation(
        annotator_id=annotator,
        target=Target(dialogue_id=d.id, turn_index=turn),
        labels=labels,
        review_of="j-0",
    )


EN = [dialogue(f"english {i}", "en", turns=4) for i in range(4)]
JA = [dialogue(f"japanese {i}", "ja", turns=4) for i in range(2)]
DE = [dialogue("german", "de", turns=4)]
SCORES = {EN[0].id: 1, EN[1].id: 5, JA[0].id: 2}


def pool() -> list[HumanExample]:
    """Sensibleness of the last chatbot turn of two English dialogues and one Japanese one; a
    user turn and a whole dialogue labelled alike are no examples of a turn protocol."""
    annotations = [
        labelled(d, 3, sensibleness=score) for d, score in zip(EN[:2], (1, 5), strict=True)
    ]
    annotations += [
        labelled(JA[0], 3, sensibleness=2),
        labelled(JA[0], 0, sensibleness=5),
        labelled(JA[1], None, sensibleness=5),
    ]
    return human_examples(annotations, {d.id: d for d in [*EN, *JA]})


def test_the_examples_come_before_the_item_as_prior_turns() -> None:
    protocol = SubmetricsProtocol(options={"few_shot": 2, "dimensions": "sensibleness"})
    chosen = protocol.use_examples(pool())
    assert {language: list(by) for language, by in chosen.ids().items()} == {
        "en": ["sensibleness"],
        "ja": ["sensibleness"],
    }
    [task] = [t for t in protocol.tasks([EN[2]]) if t.target.turn_index == 3]
    [question] = task.questions
    [zero_shot] = SubmetricsProtocol(options={"dimensions": "sensibleness"}).questions(EN[2], 3)
    roles = [m.role for m in question.messages]
    assert roles == ["system", "user", "assistant", "user", "assistant", "user"]
    assert question.messages[0] == zero_shot.messages[0]
    assert question.messages[-1] == zero_shot.messages[-1]
    [lowest_item] = SubmetricsProtocol().questions(EN[0], 3)[1:]
    assert question.messages[1] == lowest_item.messages[-1]  # the item as a question shows it
    assert json.loads(question.messages[2].content) == {"score": 1}
    assert json.loads(question.messages[4].content) == {"score": 5}
    [ja_question] = protocol.tasks([JA[1]])[0].questions
    assert len(ja_question.messages) == 4  # one Japanese example: all it has
    [de_question] = [q for t in protocol.tasks(DE) if t.target.turn_index == 3 for q in t.questions]
    [de_zero_shot] = SubmetricsProtocol(options={"dimensions": "sensibleness"}).questions(DE[0], 3)
    assert de_question == de_zero_shot  # none in German: zero-shot


def test_issues_examples_need_every_issue_and_overall() -> None:
    protocol = IssuesProtocol(options={"few_shot": 1})
    fine = dict.fromkeys(ISSUE_KEYS, False)
    annotations = [
        labelled(EN[0], None, issues=fine | {"unsafe": True}, overall=2),
        labelled(EN[1], None, issues=fine, overall=5),
        labelled(EN[2], None, issues={"unsafe": True}, overall=1),  # not every issue
        labelled(EN[3], None, issues=fine),  # no overall
    ]
    examples = human_examples(annotations, {d.id: d for d in EN})
    answers = [protocol.example_answer("issues", e) for e in examples]
    assert [a is not None for a in answers] == [True, True, False, False]
    assert answers[0] is not None
    assert answers[0].answer == {
        "issues": fine | {"unsafe": True},
        "comments": {},
        "overall": 2,
    }
    assert answers[0].value == 1.0
    chosen = protocol.use_examples(examples)
    assert [s.value for s in chosen.shots["en"]["issues"]] == [0.0]  # without issues first


def configuration(protocol: JudgeProtocol, spec: str) -> JudgeConfiguration:
    model = ScriptedModel(spec, lambda request: "{}")
    with Runner(quiet=True) as runner:
        return judge_configuration(protocol, model.model(runner, "judge"))


def test_the_examples_are_part_of_the_configuration(tmp_path: Path) -> None:
    """few_shot=0 adds nothing (judgments made before the option keep their ids); other
    examples, or the same annotations relabelled, make another configuration."""
    before: list[tuple[JudgeProtocol, dict[str, Any]]] = [
        (SubmetricsProtocol(), {"turns": "all"}),
        (IssuesProtocol(), {"other": False}),
    ]
    for protocol, options in before:
        zero = configuration(protocol, "zero")
        assert zero.options == options
        assert EXAMPLES_KEY not in zero.file_hashes
    few = SubmetricsProtocol(options={"few_shot": 1, "dimensions": "sensibleness"})
    few.use_examples(pool())
    shown = configuration(few, "few")
    assert shown.options[EXAMPLES_KEY] == {
        "en": {"sensibleness": [pool()[0].id]},
        "ja": {"sensibleness": [pool()[2].id]},
    }
    other = SubmetricsProtocol(options={"few_shot": 1, "dimensions": "sensibleness"})
    other.use_examples(pool()[1:])
    assert configuration(other, "few").fingerprint != shown.fingerprint
    relabelled = [  # each score one step nearer the middle: the same examples are chosen
        e.model_copy(
            update={
                "labels": {
                    "sensibleness": e.labels["sensibleness"]
                    + 1
                    - 2 * (e.labels["sensibleness"] > 3)
                }
            }
        )
        for e in pool()
    ]
    assert relabelled[0].id == pool()[0].id
    other.use_examples(relabelled)
    assert configuration(other, "few").options == shown.options
    assert configuration(other, "few").fingerprint != shown.fingerprint
    with pytest.raises(RuntimeError, match="use_examples"):
        configuration(SubmetricsProtocol(options={"few_shot": 1}), "unchosen")


def score_judge(name: str) -> ScriptedModel:
    return ScriptedModel(name, lambda request: '{"score": 3}')


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    """English, Japanese and German dialogues, with the reviews of `pool`."""
    run = tmp_path / "run"
    with RunStore.open(run) as store, store.invocation("import") as record:
        store.add([*EN, *JA, *DE], record)
        store.add(
            [labelled(d, 3, sensibleness=s) for d in [*EN, *JA] if (s := SCORES.get(d.id))], record
        )
    return run


def judge_sensibleness(
    run_dir: Path,
    model: ScriptedModel,
    examples: list[HumanExample] | None = None,
    **fields: Any,
) -> JudgeResult:
    """The last chatbot turn's sensibleness, under these options and config fields."""
    options = {"dimensions": "sensibleness", "turns": "last"} | fields.pop("options", {})
    config = JudgeConfig(protocol="submetrics", options=options, judges=[model.config()], **fields)
    return judge(config, run_dir, quiet=True, examples=examples)


def test_the_example_dialogues_are_not_judged_under_them(run_dir: Path) -> None:
    model = score_judge("held-out")
    summary = judge_sensibleness(run_dir, model, options={"few_shot": 2})
    examples = set(SCORES)
    assert summary.few_shot is not None
    assert set(summary.few_shot.held_out) == examples
    with RunStore.open(run_dir) as store:
        judged = {j.target.dialogue_id for j in store.records(Judgment)}
    assert judged == {d.id for d in [*EN, *JA, *DE]} - examples
    assert summary.few_shot.lines()[0] == (
        f"few-shot from {run_dir}: up to 2 reviewed example(s) of sensibleness per language; "
        "the 3 dialogue(s) they come from are not judged under them"
    )
    assert summary.few_shot.lines()[1:] == [
        "  de: no reviewed example: zero-shot",
        "  en: sensibleness 2",
        "  ja: sensibleness 1 (all it has of 2)",
    ]
    shown = [m.content for r in model.requests for m in r.messages]
    assert any("english 0 (3)" in text for text in shown)
    judge_sensibleness(run_dir, score_judge("zero-shot"))
    with RunStore.open(run_dir) as store:
        assert store.count(Judgment) == len(judged) + 7  # zero-shot: every dialogue


def test_the_examples_from_another_run_or_given(run_dir: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    with RunStore.open(other) as store, store.invocation("import") as record:
        store.add([*EN, *JA], record)
        store.add([labelled(EN[3], 3, sensibleness=4)], record)
    summary = judge_sensibleness(
        run_dir, score_judge("other"), options={"few_shot": 1}, examples_from=other
    )
    assert summary.few_shot is not None
    assert summary.few_shot.held_out == [EN[3].id]
    given = [e for e in examples_in_run(run_dir) if e.dialogue.id == EN[1].id]
    summary = judge_sensibleness(
        run_dir, score_judge("given"), options={"few_shot": 1}, examples=given
    )
    assert summary.few_shot is not None
    assert summary.few_shot.source == "the given examples"
    assert summary.few_shot.held_out == [EN[1].id]


def test_few_shot_with_nothing_to_show_is_an_error(run_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(DialbenchError, match="no complete human labels of understandability"):
        judge_sensibleness(
            run_dir, score_judge("none"), options={"few_shot": 1, "dimensions": "understandability"}
        )
    with pytest.raises(DialbenchError, match="only under a protocol option few_shot=N"):
        judge_sensibleness(run_dir, score_judge("none"), examples_from=run_dir)


def test_the_pipeline_stage_reads_the_annotations_it_shows(tmp_path: Path) -> None:
    def stage(**fields: Any) -> JudgeStage:
        return JudgeStage.model_validate({"stage": "judge", "protocol": "issues", **fields})

    assert ANNOTATIONS not in stage().reads()
    assert ANNOTATIONS in stage(options={"few_shot": 2}).reads()
    elsewhere = stage(options={"few_shot": 2}, examples_from="other").resolve_paths(tmp_path)
    assert ANNOTATIONS not in elsewhere.reads()
    assert elsewhere.examples_from == tmp_path / "other"


def test_issue_answer_is_the_schema_a_judge_answers_in() -> None:
    protocol = IssuesProtocol(options={"few_shot": 1})
    fine = dict.fromkeys(ISSUE_KEYS, False)
    protocol.use_examples(
        human_examples([labelled(EN[0], None, issues=fine, overall=4)], {EN[0].id: EN[0]})
    )
    [question] = protocol.tasks([EN[1]])[0].questions
    shown = json.loads(question.messages[2].content)
    assert shown == json.loads(issues_answer(overall=4)) | {"comments": {}}


def few_shot_stage(name: str, **options: Any) -> dict[str, Any]:
    """A pipeline's judge stage of the last chatbot turn's sensibleness, by a scripted judge."""
    model = score_judge(name)
    model.config()  # registers the script
    options = {"dimensions": "sensibleness", "turns": "last"} | options
    return {"stage": "judge", "name": name, "protocol": "submetrics", "judges": [model.spec]} | {
        "options": options
    }


def pipeline_of(folder: Path, *stages: dict[str, Any]) -> PipelineConfig:
    path = folder / "pipeline.yaml"
    path.write_text(yaml.safe_dump({"stages": list(stages)}), encoding="utf-8")
    return load_pipeline(path)


def test_a_review_in_the_web_app_makes_a_few_shot_stage_stale(
    run_dir: Path, tmp_path: Path
) -> None:
    """The examples a stage would show are part of its identity: a reviewer's label that
    changes them makes the stage run again; a zero-shot stage beside it stays up to date."""
    config = pipeline_of(tmp_path, few_shot_stage("few", few_shot=1), few_shot_stage("zero"))
    assert {s.status for s in run_pipeline(config, run_dir).stages} == {"ran"}
    assert all(stage.up_to_date for stage in plan_pipeline(config, run_dir).stages)

    with RunStore.open(run_dir) as store:
        [german] = [
            j
            for j in store.records(Judgment, dialogue_id=DE[0].id)
            if j.judge_model.endswith("zero")
        ]
    verdicts = judged_dimensions(german.result, [])
    sent = ReviewIn(reviews={german.id: {"sensibleness": 1}}, done=True)
    with RunStore.open(run_dir) as store, store.invocation("serve") as record:
        store.add(review_annotations(sent, "reviewer", {german.id: (german, verdicts)}), record)

    plan = plan_pipeline(config, run_dir)
    assert {s.name: s.up_to_date for s in plan.stages} == {"few": False, "zero": True}
    report = run_pipeline(config, run_dir)
    assert {s.name: s.status for s in report.stages} == {"few": "ran", "zero": "up to date"}
    assert report.stages[0].summary.startswith("submetrics on 4 dialogue(s)")  # DE[0] held out now
    assert {s.status for s in run_pipeline(config, run_dir).stages} == {"up to date"}


REVIEWS = """item_id,annotator_or_judge,dimension,value,language,kind
dbdc3:tt_001#3,reviewer,sensibleness,2,en,human
dbdc3:tt_002#5,reviewer,sensibleness,5,en,human
dbdc3:1503630611#2,reviewer,sensibleness,5,ja,human
"""


def test_labels_a_stage_before_imports_are_counted_once_there(tmp_path: Path) -> None:
    """Before the labels are imported the plan counts N typical examples; the judge's identity
    is settled once the import has run, so the next run finds every stage up to date; a
    changed file to import again makes the plan say its examples are today's."""
    (tmp_path / "reviews.csv").write_text(REVIEWS, encoding="utf-8")
    config = pipeline_of(
        tmp_path,
        {"stage": "import", "name": "dialogues", "example": "dbdc3_sample"},
        {"stage": "import", "name": "reviews", "file": "reviews.csv", "records": "annotations"},
        few_shot_stage("imported-few", few_shot=2) | {"limit": 1},
        few_shot_stage("imported-zero") | {"limit": 1},
        {"stage": "report"},  # reads the judgments: planned anew with the judge
    )
    run = tmp_path / "run"
    few, zero = plan_pipeline(config, run).stages[2:4]
    assert few.note == (
        "few-shot: no labels stored yet; 2 of sensibleness counted as long as a typical item"
    )
    assert few.models[0].calls.prompt_tokens > zero.models[0].calls.prompt_tokens
    report = run_pipeline(config, run)
    assert {s.status for s in report.stages} == {"ran"}, report.stages
    assert {s.status for s in run_pipeline(config, run).stages} == {"up to date"}
    with (tmp_path / "reviews.csv").open("a", encoding="utf-8") as reviews:
        reviews.write("dbdc3:tt_002#7,reviewer,sensibleness,1,en,human\n")
    few = plan_pipeline(config, run).stages[2]
    assert few.note == (
        "few-shot examples counted: en 2 of sensibleness; ja 1 of sensibleness (chosen from the "
        "labels stored now; reviews will add labels first)"
    )


def test_the_dry_run_counts_the_examples_each_language_is_shown(run_dir: Path) -> None:
    """Per language, the plan's prompt tokens hold the examples a judgment of that language is
    shown (as `tasks` puts them before the item); a language without any is zero-shot."""
    config = pipeline_of(
        run_dir.parent, few_shot_stage("plan-few", few_shot=2), few_shot_stage("plan-zero")
    )
    few, zero = plan_pipeline(config, run_dir).stages
    protocol = SubmetricsProtocol(
        options={"few_shot": 2, "dimensions": "sensibleness", "turns": "last"}
    )
    protocol.use_examples(examples_in_run(run_dir))

    def shown(d: Dialogue) -> int:
        [question] = protocol.tasks([d])[0].questions
        return sum(text_tokens(m.content) for m in question.messages[1:-1])

    added = len(EN) * shown(EN[2]) + len(JA) * shown(JA[1]) + len(DE) * shown(DE[0])
    assert shown(EN[2]) > shown(JA[1]) > shown(DE[0]) == 0
    [few_calls], [zero_calls] = [[m.calls for m in s.models] for s in (few, zero)]
    assert few_calls.calls == zero_calls.calls == len(EN) + len(JA) + len(DE)
    assert few_calls.prompt_tokens - zero_calls.prompt_tokens == added
    assert few.note == (
        "few-shot examples counted: de zero-shot; en 2 of sensibleness; ja 1 of sensibleness"
    )
