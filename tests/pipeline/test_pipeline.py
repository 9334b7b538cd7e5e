"""`dialbench run`: stages run once, an unchanged pipeline makes no model call, a changed stage
reruns with what depends on it and nothing else; scripted models count the calls per stage."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
import yaml

from dialbench.llm.base import Request
from dialbench.pipeline.config import load_pipeline
from dialbench.pipeline.execute import PipelineResult, run_pipeline
from dialbench.pipeline.plan import plan_pipeline
from dialbench.pipeline.stage import first_of
from dialbench.schema import Benchmark, Dialogue, Judgment, StageRecord
from dialbench.store import RunStore
from tests.judge.scripted import issues_answer
from tests.scripted_models import ScriptedModel


def reply(text: str) -> ScriptedModel:
    return ScriptedModel(f"pipeline-{abs(hash(text)) % 10**8}", lambda _request: text)


USER = reply("My dinner burned and my friends arrive in ten minutes.")
VALIDATOR = reply("Yes.")
CHATBOT = reply("Order pizza and laugh about it together.")
HOLISTIC = reply(json.dumps({"reason": "helpful", "quality": 2}))
ISSUES = reply(issues_answer(overall=4, repetitive=True))
MODELS = (USER, VALIDATOR, CHATBOT, HOLISTIC, ISSUES)


def requests_of(model: ScriptedModel) -> list[Request]:
    return model.requests


def pipeline(**changes: object) -> dict[str, object]:
    """The test pipeline as YAML data; `changes` replaces a stage's settings by its name."""
    for model in MODELS:
        model.config()  # registers the script
    stages: list[dict[str, object]] = [
        {"stage": "import", "name": "data", "example": "multilingual_dialogues"},
        {
            "stage": "simulate",
            "languages": ["en", "zh"],
            "seeds": {"contexts": 1},
            "user": {"models": [USER.spec], "form": "chat"},
            "validator": {"model": VALIDATOR.spec, "form": "chat"},
            "chatbots": {"models": [CHATBOT.spec]},
            "max_utterances": 4,
            "filter": {"rules": False},
        },
        {"stage": "judge", "name": "holistic", "protocol": "holistic", "judges": [HOLISTIC.spec]},
        {
            "stage": "judge",
            "name": "issues",
            "protocol": "issues",
            "judges": [ISSUES.spec],
            "sources": ["medal"],
        },
        {"stage": "curate", "benchmark": "pilot", "per_language": 1},
        {"stage": "report"},
    ]
    for stage in stages:
        stage.update(changes.get(str(stage.get("name", stage["stage"])), {}))  # type: ignore[arg-type]
    return {"stages": stages}


def run(tmp_path: Path, data: dict[str, object]) -> tuple[PipelineResult, dict[str, int]]:
    """Run the pipeline; the calls each scripted model received during the run."""
    path = tmp_path / "pipeline.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    before = {model.spec: len(model.requests) for model in MODELS}
    report = run_pipeline(load_pipeline(path), tmp_path / "run")
    return report, {m.spec: len(m.requests) - before[m.spec] for m in MODELS}


def statuses(report: PipelineResult) -> dict[str, str]:
    return {stage.name: stage.status for stage in report.stages}


def test_a_pipeline_runs_once_and_then_makes_no_call(tmp_path: Path) -> None:
    first, calls = run(tmp_path, pipeline())
    assert set(statuses(first).values()) == {"ran"}, first
    assert all(calls[m.spec] > 0 for m in MODELS)
    with RunStore.open(tmp_path / "run") as store:
        simulated = list(store.records(Dialogue, source="medal"))
        assert len(simulated) == 2  # en and zh, one context each, one chatbot
        assert {d.end_reason for d in simulated} == {"turn_cap"}
        judged = list(store.records(Judgment))
        assert {j.protocol for j in judged} == {"holistic", "issues"}
        assert store.count(StageRecord) == 6
        [benchmark] = store.records(Benchmark)
        assert {item.language for item in benchmark.items} == {"en", "zh"}
    assert (tmp_path / "run" / "report" / "index.html").exists()

    again, calls = run(tmp_path, pipeline())
    assert set(statuses(again).values()) == {"up to date"}
    assert sum(calls.values()) == 0


def test_changing_one_stage_reruns_it_and_what_reads_it_only(tmp_path: Path) -> None:
    run(tmp_path, pipeline())
    changed, calls = run(tmp_path, pipeline(holistic={"settings": {"temperature": 0.5}}))
    assert statuses(changed) == {
        "data": "up to date",
        "simulate": "up to date",
        "holistic": "ran",
        "issues": "up to date",
        "curate": "ran",  # it reads judgments: it runs, and finds its benchmark unchanged
        "report": "ran",
    }
    assert calls[HOLISTIC.spec] > 0
    assert sum(n for spec, n in calls.items() if spec != HOLISTIC.spec) == 0

    # New dialogues make another benchmark: under a new name, since a benchmark never changes.
    longer, calls = run(
        tmp_path, pipeline(simulate={"max_utterances": 6}, curate={"benchmark": "pilot-2"})
    )
    assert statuses(longer)["data"] == "up to date"
    rerun = ("simulate", "holistic", "issues", "curate", "report")
    assert {statuses(longer)[n] for n in rerun} == {"ran"}
    assert calls[CHATBOT.spec] > 0
    assert calls[HOLISTIC.spec] > 0
    # Only the two new dialogues are judged: the others were judged before.
    assert calls[HOLISTIC.spec] == 2


def test_pace_settings_do_not_change_a_stage(tmp_path: Path) -> None:
    run(tmp_path, pipeline())
    again, _calls = run(
        tmp_path, pipeline(simulate={"concurrency": 3}, holistic={"store_every": 2})
    )
    assert set(statuses(again).values()) == {"up to date"}


def test_a_failed_stage_stops_only_what_waits_for_it(tmp_path: Path) -> None:
    data = pipeline()
    stages = data["stages"]
    assert isinstance(stages, list)
    stages.insert(4, {"stage": "metaeval", "protocol": "issues"})  # no annotations: fails
    report, _ = run(tmp_path, data)
    assert statuses(report)["metaeval"] == "failed"
    assert "no human ratings" in report.stages[4].summary
    assert statuses(report)["report"] == "ran"  # the report does not read metaeval's files
    assert report.failed


def test_the_dry_run_plans_calls_and_skips_what_is_done(tmp_path: Path) -> None:
    path = tmp_path / "pipeline.yaml"
    path.write_text(yaml.safe_dump(pipeline()), encoding="utf-8")
    config = load_pipeline(path)
    plan = plan_pipeline(config, tmp_path / "run")
    by_name = {stage.name: stage for stage in plan.stages}
    simulate_calls = {m.spec: m.calls.calls for m in by_name["simulate"].models}
    assert simulate_calls == {USER.spec: 4, VALIDATOR.spec: 4, CHATBOT.spec: 4}
    imported = 13  # the bundled multilingual dialogues
    assert by_name["holistic"].models[0].calls.calls == imported + 2
    assert plan.calls > 0
    assert plan.wall_s > 0

    run(tmp_path, pipeline())
    done = plan_pipeline(config, tmp_path / "run")
    assert all(stage.up_to_date for stage in done.stages)
    assert done.calls == 0


def test_a_judge_is_planned_from_its_protocols_questions_and_limit(tmp_path: Path) -> None:
    """Submetrics asks two questions of each chatbot turn (its prompts counted as they are
    written), and `limit` caps the dialogues of each language; the bundled multilingual
    dialogues hold 2 of en, zh, de, fr and es, 1 of ja, pt and pt-BR."""
    stages = [
        {"stage": "import", "name": "data", "example": "multilingual_dialogues"},
        {"stage": "judge", "protocol": "submetrics", "judges": [HOLISTIC.spec], "limit": 1},
    ]
    path = tmp_path / "pipeline.yaml"
    path.write_text(yaml.safe_dump({"stages": stages}), encoding="utf-8")
    HOLISTIC.config()
    judge = plan_pipeline(load_pipeline(path), tmp_path / "run").stages[1].models[0].calls
    languages, turns_per_dialogue, questions = 8, 5, 2
    assert judge.calls == languages * turns_per_dialogue * questions
    per_question = judge.prompt_tokens / judge.calls
    assert 150 < per_question < 400, "a turn in its context, not a whole transcript"


def test_a_judge_of_some_languages_is_planned_for_those_only(tmp_path: Path) -> None:
    stages = [
        {"stage": "import", "name": "data", "example": "multilingual_dialogues"},
        {
            "stage": "judge",
            "protocol": "holistic",
            "judges": [HOLISTIC.spec],
            "languages": ["en"],
            "limit": 1,
        },
    ]
    path = tmp_path / "pipeline.yaml"
    path.write_text(yaml.safe_dump({"stages": stages}), encoding="utf-8")
    HOLISTIC.config()
    judge = plan_pipeline(load_pipeline(path), tmp_path / "run").stages[1].models[0].calls
    assert judge.calls == 1  # one dialogue of en, one question; it planned 8, one per language


def test_the_first_k_of_a_list_keep_each_languages_share() -> None:
    seeds = Counter({"en": 2, "zh": 2, "de": 2, "fr": 2, "es": 2, "ja": 1, "pt": 1})
    assert sum(first_of(seeds, 3).values()) == 3
    assert first_of(Counter({"en": 10, "ja": 5}), 6) == Counter({"en": 4, "ja": 2})
    assert first_of(Counter({"en": 1}), 6) == Counter({"en": 1})


@pytest.mark.parametrize(
    ("stages", "message"),
    [
        ("- stage: translate\n", "pipeline.yaml:2"),
        ("- stage: judge\n  protocl: issues\n", "protocl"),
        ("- stage: import\n", "either file: or example:"),
        ("- stage: report\n  name: a\n- stage: report\n  name: a\n", "two stages are named a"),
    ],
)
def test_a_bad_pipeline_file_names_its_line_and_field(
    tmp_path: Path, stages: str, message: str
) -> None:
    from dialbench.errors import DialbenchError

    path = tmp_path / "pipeline.yaml"
    path.write_text("stages:\n" + stages, encoding="utf-8")
    with pytest.raises(DialbenchError, match=message):
        load_pipeline(path)


def test_pools_declared_once_as_anchors_plan_faster_with_more_replicas(tmp_path: Path) -> None:
    """The shipped vLLM example: each model a pool of replicas under `endpoints:`, the shared
    ones written once in `anchors:` and reused by alias. Fewer replicas, longer wall time."""
    example = Path(__file__).resolve().parents[2] / "examples" / "medal_vllm.yaml"
    four = plan_pipeline(load_pipeline(example), tmp_path / "run")
    assert four.calls == 38_400 * 16  # five user, validator and chatbot turns, one judgment

    data = yaml.safe_load(example.read_text(encoding="utf-8"))
    judge = data["anchors"]["qwen72"]  # the same mapping as the judge stage's, through *qwen72
    judge["endpoints"] = judge["endpoints"][:1]
    path = tmp_path / "one-replica.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    one = plan_pipeline(load_pipeline(path), tmp_path / "run")
    walls = [next(s.wall_s for s in plan.stages if s.name == "issues") for plan in (four, one)]
    assert walls[1] == pytest.approx(4 * walls[0])
