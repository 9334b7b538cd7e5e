"""The real packaged 0.5B judge over imported dialogues in English, Chinese and German, under
all three protocols, through the console script; then a re-run and the report."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
from pathlib import Path

import pytest

from dialbench.schema import Dialogue, Judgment
from dialbench.store import RunStore
from tests.conftest import DIALBENCH

# About 2 minutes on an idle 2-core machine; the margin is for a machine shared with other jobs.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]
LANGUAGES = ("en", "zh", "de")


def dialbench(*args: str | Path) -> str:
    done = subprocess.run(
        [str(DIALBENCH), *map(str, args)], capture_output=True, text=True, timeout=1200, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def run(example_jsonl: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One dialogue per language, judged by the local model under every protocol."""
    folder = tmp_path_factory.mktemp("judged")
    lines = example_jsonl.read_text(encoding="utf-8").splitlines()
    first = {json.loads(line)["language"]: line for line in reversed(lines)}
    subset = folder / "three.jsonl"
    subset.write_text("".join(first[lang] + "\n" for lang in LANGUAGES), encoding="utf-8")
    run = folder / "run"
    dialbench("import", subset, "--run", run)
    dialbench("judge", run, "--protocol", "issues", "--quiet")
    dialbench("judge", run, "--protocol", "holistic", "--option", "few_shot=true", "--quiet")
    dialbench("judge", run, "--protocol", "submetrics", "--quiet")
    return run


def judgments(run: Path, protocol: str) -> list[Judgment]:
    with RunStore.open(run) as store:
        return list(store.records(Judgment, protocol=protocol))


def test_issues_in_three_languages(run: Path) -> None:
    judged = judgments(run, "issues")
    assert len(judged) == 3
    for j in judged:
        assert j.parse_status == "ok", j.error
        assert j.result is not None
        issues = j.result["issues"]
        assert isinstance(issues, dict)
        assert len(issues) == 8
        assert all(isinstance(flag, bool) for flag in issues.values())
        assert j.result["overall"] in (1, 2, 3, 4, 5)
        assert j.judge_model == "local:qwen2.5-0.5b"
        assert j.usage.prompt_tokens > 300
        assert j.usage.cost_usd == 0.0
        assert j.raw_output.lstrip().startswith("{")


def test_holistic_few_shot(run: Path) -> None:
    judged = judgments(run, "holistic")
    assert [j.parse_status for j in judged] == ["ok"] * 3
    for j in judged:
        assert j.result is not None
        assert j.result["quality"] in (0, 1, 2)
        assert isinstance(j.result["reason"], str)
        assert j.configuration is not None
        assert j.configuration.options == {"few_shot": True}
        assert "holistic_examples" in j.configuration.file_hashes


def test_submetrics_on_every_chatbot_turn(run: Path) -> None:
    with RunStore.open(run) as store:
        chatbot_turns = {
            (d.id, i)
            for d in store.records(Dialogue)
            for i, turn in enumerate(d.turns)
            if turn.role == "assistant"
        }
    judged = judgments(run, "submetrics")
    assert {(j.target.dialogue_id, j.target.turn_index) for j in judged} == chatbot_turns
    for j in judged:
        assert j.parse_status == "ok", j.error
        assert j.result is not None
        assert j.result["understandability"] in (1, 2, 3, 4, 5)
        assert j.result["sensibleness"] in (1, 2, 3, 4, 5)


def cached_calls(run: Path) -> int:
    with sqlite3.connect(run / "dialbench.sqlite") as db:
        return int(db.execute("SELECT COUNT(*) FROM llm_cache").fetchone()[0])


def test_a_rerun_makes_no_call_and_adds_no_judgment(run: Path) -> None:
    calls = cached_calls(run)
    before = {j.id: j for j in judgments(run, "issues")}
    out = dialbench("judge", run, "--protocol", "issues", "--quiet")
    judge_line = r"local:qwen2\.5-0\.5b \[c-[0-9a-f]{12}\]: 3 judgment\(s\): "
    assert re.search(judge_line + "3 already ok, 0 ok, 0 unscored\n", out)
    assert cached_calls(run) == calls
    assert {j.id: j for j in judgments(run, "issues")} == before


def test_the_report_of_the_judged_run(run: Path) -> None:
    dialbench("report", run)
    folder = run / "report"
    assert (folder / "plots" / "issues_heatmap_local_qwen2.5-0.5b.png").stat().st_size > 10_000
    for name in ("issue_rates", "holistic_distribution", "submetric_means", "judges"):
        table = (folder / "tables" / f"{name}.csv").read_text(encoding="utf-8")
        assert all(f",{lang}," in table for lang in LANGUAGES), name
    assert "Turn-level submetrics" in (folder / "index.html").read_text(encoding="utf-8")
