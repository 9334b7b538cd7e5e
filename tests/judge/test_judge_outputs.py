"""Judge outputs as models really give them, through the real runner, cache and store: parsed,
re-asked, or recorded as unscored with the reason, never turned into a default label."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import JsonValue
from scripted import ISSUES_SCRIPT, dialogue, scripted_judge

from dialbench.errors import DialbenchError
from dialbench.judge.judging import JudgeResult, judge_dialogues, select_dialogues
from dialbench.judge.registry import get_protocol
from dialbench.judge.settings import JudgeSettings
from dialbench.llm.runner import Runner
from dialbench.schema import Dialogue, Judgment
from dialbench.store import RunStore
from tests.scripted_models import ScriptedModel

MARKED = [dialogue(key) for key in (*ISSUES_SCRIPT, "call-fails")]


def judge(
    run_dir: Path,
    apis: list[ScriptedModel],
    dialogues: list[Dialogue],
    protocol: str = "issues",
    settings: JudgeSettings | None = None,
    options: dict[str, JsonValue] | None = None,
) -> tuple[JudgeResult, dict[str, Judgment]]:
    """Judge the dialogues (stored first) and return the summary and judgments by marker."""
    with RunStore.open(run_dir) as store, Runner(run_dir, quiet=True) as runner:
        with store.invocation("import") as run:
            store.add(dialogues, run)
        models = [api.model(runner, "judge") for api in apis]
        with store.invocation("judge") as run:
            chosen = get_protocol(protocol, settings, options)
            job = judge_dialogues(store, runner, chosen, models, dialogues, run)
            summary = runner.run_sync(job)
        texts = {d.id: d.turns[0].text.split(" (")[0] for d in dialogues}
        stored = {
            "/".join(map(str, (j.judge_model, texts[j.target.dialogue_id], j.target.turn_index)))
            + f"/{j.sample_index}": j
            for j in store.records(Judgment)
        }
    return summary, stored


@pytest.fixture
def judged(tmp_path: Path) -> dict[str, Judgment]:
    return judge(tmp_path, [scripted_judge("a", ISSUES_SCRIPT)], MARKED)[1]


def one(judged: dict[str, Judgment], key: str) -> Judgment:
    return judged[f"scripted:a/{key}/None/0"]


@pytest.mark.parametrize("key", ["well-formed", "fenced", "truncated-then-fixed"])
def test_parseable_outputs_give_the_result(judged: dict[str, Judgment], key: str) -> None:
    j = one(judged, key)
    assert j.parse_status == "ok"
    assert j.result is not None
    assert j.result["overall"] == 4
    issues = j.result["issues"]
    assert isinstance(issues, dict)
    assert [key for key, present in issues.items() if present] == ["repetitive"]
    assert len(issues) == 8
    assert j.result["comments"] == {"repetitive": "turn 1 is repetitive"}


def test_a_truncated_answer_is_re_asked_and_both_answers_are_kept(
    judged: dict[str, Judgment],
) -> None:
    j = one(judged, "truncated-then-fixed")
    assert "answer 1 ---" in j.raw_output
    assert "answer 2 ---" in j.raw_output
    assert j.usage.prompt_tokens == 100


@pytest.mark.parametrize(
    ("key", "reason"),
    [
        ("extra-prose", "not valid JSON"),
        ("wrong-types", "is not of type"),
        ("out-of-range", "7 is not one of"),
    ],
)
def test_unparseable_after_re_asks_is_unscored_with_no_result(
    judged: dict[str, Judgment], key: str, reason: str
) -> None:
    j = one(judged, key)
    assert j.parse_status == "unscored"
    assert j.result is None
    assert j.error is not None
    assert "unparseable after 3 answer(s)" in j.error
    assert reason in j.error
    assert j.raw_output.count("--- issues, answer") == 3


def test_a_failed_call_is_an_unscored_judgment_not_a_crash(judged: dict[str, Judgment]) -> None:
    j = one(judged, "call-fails")
    assert j.parse_status == "unscored"
    assert j.error is not None
    assert "model call failed" in j.error
    assert "refused" in j.error


def test_configuration_names_the_prompts_the_labels_and_provenance_the_judge(
    judged: dict[str, Judgment],
) -> None:
    j = one(judged, "well-formed")
    assert j.configuration is not None
    assert set(j.configuration.file_hashes) == {
        "judge_issues",
        "judge_dialogue",
        "issue_labels",
        "llm_reask",
    }
    assert j.configuration.structured_mode == "json_object"
    assert j.provenance is not None
    assert j.provenance.models == {"judge": "scripted:a"}
    assert j.created_at is not None


def test_rerun_skips_ok_judgments_and_asks_unscored_ones_again_from_the_cache(
    tmp_path: Path,
) -> None:
    first = scripted_judge("a", ISSUES_SCRIPT)
    judge(tmp_path, [first], MARKED)
    again = scripted_judge("a", ISSUES_SCRIPT)
    summary, stored = judge(tmp_path, [again], MARKED)
    [tally] = summary.judges
    assert tally.already_ok == 3
    assert (tally.ok, tally.unscored) == (0, 4)
    # Unparseable answers come back from the cache; only the failed call is made again.
    assert [r.messages[-1].content for r in again.requests] == [
        r.messages[-1].content for r in first.requests if "call-fails" in r.messages[1].content
    ]
    assert len(stored) == len(MARKED)


def test_several_judges_side_by_side_and_samples(tmp_path: Path) -> None:
    apis = [scripted_judge("a", ISSUES_SCRIPT), scripted_judge("b", ISSUES_SCRIPT)]
    settings = JudgeSettings(samples=2, temperature=0.7)
    summary, stored = judge(tmp_path, apis, [dialogue("well-formed")], settings=settings)
    assert sorted(stored) == [
        f"scripted:{name}/well-formed/None/{sample}" for name in "ab" for sample in (0, 1)
    ]
    assert [t.ok for t in summary.judges] == [2, 2]
    for api in apis:
        assert sorted(r.sample for r in api.requests) == [0, 1]
        assert {r.params.temperature for r in api.requests} == {0.7}


def test_holistic_and_submetrics_reject_out_of_range_scores(tmp_path: Path) -> None:
    holistic = {
        "well-formed": [json.dumps({"reason": "complete answer", "quality": 2})],
        "out-of-range": [json.dumps({"reason": "great", "quality": 3})],
    }
    _, stored = judge(
        tmp_path / "h",
        [scripted_judge("a", holistic)],
        [dialogue("well-formed"), dialogue("out-of-range")],
        "holistic",
    )
    assert stored["scripted:a/well-formed/None/0"].result == {
        "quality": 2,
        "reason": "complete answer",
    }
    assert stored["scripted:a/out-of-range/None/0"].parse_status == "unscored"
    scores = {"well-formed": ['{"score": 4}'], "out-of-range": ['{"score": 0}']}
    _, stored = judge(
        tmp_path / "s",
        [scripted_judge("a", scores)],
        [dialogue("well-formed", turns=4), dialogue("out-of-range")],
        "submetrics",
    )
    assert sorted(stored) == [
        "scripted:a/out-of-range/1/0",
        "scripted:a/well-formed/1/0",
        "scripted:a/well-formed/3/0",
    ]
    assert stored["scripted:a/well-formed/3/0"].result == {
        "understandability": 4,
        "sensibleness": 4,
    }
    unscored = stored["scripted:a/out-of-range/1/0"]
    assert unscored.error is not None
    assert "understandability: unparseable" in unscored.error
    assert "sensibleness: unparseable" in unscored.error


def test_an_empty_run_is_a_clear_error(tmp_path: Path) -> None:
    with RunStore.open(tmp_path) as store, pytest.raises(DialbenchError, match="no dialogues"):
        select_dialogues(store)


def test_a_protocol_with_nothing_to_judge_is_a_clear_error(tmp_path: Path) -> None:
    only_users = dialogue("well-formed", turns=1)
    with pytest.raises(DialbenchError, match="finds nothing to judge"):
        judge(tmp_path, [scripted_judge("a", ISSUES_SCRIPT)], [only_users], "submetrics")


def test_an_unknown_protocol_is_a_clear_error() -> None:
    with pytest.raises(DialbenchError, match=r"unknown protocol 'tournament' \(known: issues"):
        get_protocol("tournament")


def test_selection_by_language_takes_at_most_the_limit_of_each(tmp_path: Path) -> None:
    made = [dialogue(f"d{i}", language) for language in ("en", "zh", "de") for i in range(3)]
    with RunStore.open(tmp_path) as store, store.invocation("import") as run:
        store.add(made, run)
        chosen = select_dialogues(store, languages=["ZH", "de"], limit=2)
        everything = select_dialogues(store, limit=1)
    assert [(d.language, d.turns[0].text) for d in chosen] == [
        ("zh", "d0 (0)"),
        ("zh", "d1 (0)"),
        ("de", "d0 (0)"),
        ("de", "d1 (0)"),
    ]
    assert [d.language for d in everything] == ["en", "zh", "de"]
