"""`dialbench curate` end to end on a real store with a known distribution: what is stored and
written, re-runs, names, and the errors a user can act on."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from dialbench.curate.api import curate
from dialbench.curate.config import CurateConfig
from dialbench.errors import DialbenchError
from dialbench.schema import Benchmark, Dialogue
from dialbench.store import RunStore
from tests.conftest import RunCli
from tests.curate.known_store import (
    CHATBOTS,
    JUDGE,
    LANGUAGES,
    add_judge_with_two_configurations,
    dialogue,
    judged,
    make_store,
)
from tests.judge.scripted import ISSUE_KEYS


@pytest.fixture
def run(tmp_path: Path) -> Path:
    return make_store(tmp_path / "run")


def benchmarks(run: Path) -> list[Benchmark]:
    with RunStore.open(run) as store:
        return list(store.records(Benchmark))


def test_curate_stores_writes_and_balances(cli: RunCli, run: Path) -> None:
    done = cli("curate", run, "--name", "medal", "--per-language", "24", "--judge", JUDGE)
    assert "added: 144 dialogue(s)" in done.stdout
    [benchmark] = benchmarks(run)
    assert benchmark.name == "medal"
    assert Counter(item.language for item in benchmark.items) == dict.fromkeys(LANGUAGES, 24)
    # bot-0's two uninterpretable dialogues per language are commented as mixed-language
    assert len(benchmark.excluded["mixed-language"]) == 2 * len(LANGUAGES)
    assert len(benchmark.excluded["unscored"]) == len(benchmark.excluded["not-judged"]) == 6
    picked = {item.dialogue_id for item in benchmark.items}
    assert not picked & {i for ids in benchmark.excluded.values() for i in ids}
    with RunStore.open(run) as store:
        dialogues = {d.id: d for d in store.records(Dialogue)}
    for language in LANGUAGES:
        items = [item for item in benchmark.items if item.language == language]
        assert [item.reason for item in items[:6]] == ["issue-free"] * 6
        chatbots = Counter(dialogues[item.dialogue_id].participants.assistant for item in items)
        assert sorted(chatbots) == sorted(CHATBOTS)
        # bot-0 has no uninterpretable dialogue left to pick: each such round may unbalance
        relaxed = sum("least-represented-chatbot" in item.relaxed for item in items)
        assert max(chatbots.values()) - min(chatbots.values()) <= 1 + relaxed

    folder = run / "benchmarks" / "medal"
    lines = [
        json.loads(line) for line in (folder / "benchmark.jsonl").read_text("utf-8").splitlines()
    ]
    assert [line["dialogue"]["id"] for line in lines] == [
        item.dialogue_id for item in benchmark.items
    ]
    assert [line["position"] for line in lines] == list(range(1, 145))
    assert all(line["reason"] == "issue-free" or line["judged_issues"] for line in lines[:24])
    summary = pd.read_csv(folder / "summary.csv")
    english = summary[summary["language"] == "en"].set_index(["aspect", "value"])
    assert english.loc[("dialogues", "all"), "before"] == 52
    assert english.loc[("dialogues", "all"), "after"] == 24
    assert english.loc[("issue", "issue-free"), "after"] == 6
    assert set(summary["aspect"]) == {"dialogues", "issue", "overall", "chatbot"}
    assert len(summary[summary["aspect"] == "issue"]) == len(LANGUAGES) * (1 + len(ISSUE_KEYS))
    markdown = (folder / "summary.md").read_text("utf-8")
    assert "## zh" in markdown
    assert "![before and after](summary.png)" in markdown
    assert (folder / "summary.png").read_bytes()[:4] == b"\x89PNG"


def test_same_arguments_same_benchmark_another_name_keeps_both(cli: RunCli, run: Path) -> None:
    args = ("curate", run, "--name", "b1", "--per-language", "20", "--seed", "3")
    cli(*args)
    first = benchmarks(run)
    again = cli(*args)
    assert "unchanged: 120 dialogue(s)" in again.stdout
    assert benchmarks(run) == first
    cli("curate", run, "--name", "b2", "--per-language", "20", "--seed", "4")
    stored = {b.name: b for b in benchmarks(run)}
    assert set(stored) == {"b1", "b2"}
    assert stored["b1"] == first[0]
    assert stored["b1"].items != stored["b2"].items  # another seed breaks ties otherwise
    listed = cli("curate", run, "--list").stdout
    assert "b1" in listed
    assert "b2" in listed


def test_the_same_name_with_other_settings_is_refused_and_leaves_no_run(
    cli: RunCli, run: Path
) -> None:
    cli("curate", run, "--name", "b1", "--per-language", "10")
    with RunStore.open(run) as store:
        runs = len(store.invocations())
    refused = cli("curate", run, "--name", "b1", "--per-language", "12", ok=False)
    assert refused.returncode == 1
    assert refused.stderr.strip() == (
        "error: a benchmark 'b1' already exists with other settings or selections; "
        "choose another --name"
    )
    with RunStore.open(run) as store:
        assert len(store.invocations()) == runs
    assert len(benchmarks(run)[0].items) == 60


def test_relaxations_are_recorded_when_no_issue_free_dialogue_has_the_top_score(
    tmp_path: Path,
) -> None:
    run = make_store(tmp_path / "run", top_overall=4)
    result = curate(CurateConfig(benchmark="relaxed", per_language=10, languages=["de"]), run)
    [german] = result.languages
    assert german.relaxed["top-overall"] == 6
    assert all(item.relaxed == ["top-overall"] for item in result.benchmark.items[:6])
    assert "top-overall 6" in (result.folder / "summary.md").read_text("utf-8")


def test_a_judge_with_several_configurations_must_be_named_with_one(cli: RunCli, run: Path) -> None:
    names = add_judge_with_two_configurations(run)
    several = cli("curate", run, "--name", "x", ok=False)
    assert several.returncode == 1
    assert "several issues judges" in several.stderr
    unnamed = cli("curate", run, "--name", "x", "--judge", "judge-b", ok=False)
    assert unnamed.returncode == 1
    assert "judged under several configurations" in unnamed.stderr
    assert all(name in unnamed.stderr for name in names)
    done = cli("curate", run, "--name", "x", "--judge", names[1], "--per-language", "8")
    assert "judge-b [c-" in done.stdout
    [benchmark] = benchmarks(run)
    assert {item.language for item in benchmark.items} == {"en"}
    assert benchmark.settings["judge"] == names[1]


def test_user_errors_are_one_line_and_exit_1(cli: RunCli, run: Path, tmp_path: Path) -> None:
    unknown = cli("curate", run, "--name", "x", "--judge", "gpt-9", ok=False)
    assert unknown.returncode == 1
    assert f"no issues judgments by 'gpt-9' in {run}; issues judges: 'judge-a'" in unknown.stderr
    bad = tmp_path / "words.yaml"
    bad.write_text("comments_of: [uninterpretable]\nkeywords: {en: 3}\n", encoding="utf-8")
    keywords = cli("curate", run, "--name", "x", "--keywords", bad, ok=False)
    assert keywords.returncode == 1
    assert f"{bad}:2: field 'keywords.en'" in keywords.stderr
    name = cli("curate", run, "--name", "no spaces", ok=False)
    assert name.returncode == 1
    assert "name" in name.stderr
    nameless = cli("curate", run, ok=False)
    assert "--name" in nameless.stderr
    for failed in (unknown, keywords, name, nameless):
        assert "Traceback" not in failed.stderr
        assert len(failed.stderr.strip().splitlines()) == 1
    assert benchmarks(run) == []


def test_a_run_without_issues_judgments_says_what_to_do(cli: RunCli, tmp_path: Path) -> None:
    run = tmp_path / "empty"
    with RunStore.open(run) as store, store.invocation("test") as record:
        store.add([Dialogue(language="en", turns=[{"role": "user", "text": "hi"}])], record)
    done = cli("curate", run, "--name", "x", ok=False)
    assert done.returncode == 1
    assert f"{run} holds no issues judgments to curate from" in done.stderr
    assert "--protocol issues" in done.stderr
    missing = cli("curate", tmp_path / "nowhere", "--name", "x", ok=False)
    assert missing.returncode == 1
    assert "no dialbench run store here" in missing.stderr


def test_a_judge_whose_every_verdict_is_unscored_gives_nothing_to_curate(tmp_path: Path) -> None:
    run = tmp_path / "run"
    made = dialogue("fr", 0)
    with RunStore.open(run) as store, store.invocation("test") as record:
        store.add([made], record)
        store.add([judged(made, None)], record)
    with pytest.raises(DialbenchError) as raised:
        curate(CurateConfig(benchmark="x"), run)
    assert str(raised.value) == (
        f"no dialogue has a usable verdict of {JUDGE!r} to curate from (1 unscored)"
    )
    with RunStore.open(run) as store:
        assert [r.command for r in store.invocations()] == ["test"]
