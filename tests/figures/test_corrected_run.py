"""Figures corrected by human labels, end to end on a run whose truth is known (the walk-through's
simulation, examples/corrected_figures/): an audit sample drawn, its dialogues labelled, then
`stats`, the report and `compare` read the corrected figures; labels on a curated benchmark
correct nothing, and say why."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pandas as pd
import pytest
from typer.testing import CliRunner

from dialbench.cli.app import app
from dialbench.cli.run_stats import run_statistics
from dialbench.curate.audit_sample import AuditConfig, allocate, draw_audit_sample
from dialbench.figures.versions import compare_versions
from dialbench.report.writer import write_report
from dialbench.schema import Annotation, Benchmark, BenchmarkItem
from dialbench.store import RunStore
from dialbench.store_contents import count_contents

EXAMPLE = Path(__file__).parents[2] / "examples" / "corrected_figures" / "simulate_judged_run.py"


def _example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("simulate_judged_run", EXAMPLE)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Annotation]]:
    """A judged run (6 languages × 2 chatbots × 40 seeds), and every dialogue's true labels."""
    dialogues, judgments, truth = _example().simulate(seeds=40, random_seed=7)
    path = tmp_path_factory.mktemp("corrected") / "run"
    with RunStore.open(path) as store, store.invocation("test") as run:
        store.add(dialogues, run)
        store.add(judgments, run)
    return path, {a.target.dialogue_id: a for a in truth}


def _label(path: Path, truth: dict[str, Annotation], dialogue_ids: list[str]) -> None:
    with RunStore.open(path, create=False) as store, store.invocation("test") as run:
        store.add([truth[d] for d in dialogue_ids], run)


def test_allocation_oversamples_the_flagged_and_caps_each_part() -> None:
    assert allocate(30, flagged=20, unflagged=60, factor=2.0) == (12, 18)
    assert allocate(30, flagged=5, unflagged=60, factor=10.0) == (5, 25)
    assert allocate(30, flagged=10, unflagged=10, factor=1.0) == (10, 10)
    # a part that holds dialogues is drawn at least once: never drawn, nothing stands for it
    assert allocate(3, flagged=1, unflagged=100, factor=3.0) == (1, 2)
    assert allocate(3, flagged=100, unflagged=1, factor=3.0) == (2, 1)


def test_corrected_figures_recover_the_truth_the_judge_misses(
    simulated: tuple[Path, dict[str, Annotation]],
) -> None:
    path, truth = simulated
    config = AuditConfig(
        name="audit", per_cell=20, oversample_flagged=2.0, judge="sim:issues-judge", seed=3
    )
    drawn = draw_audit_sample(config, path)
    assert len(drawn.benchmark.items) == 12 * 20
    assert draw_audit_sample(config, path).status == "unchanged"
    lines = Path(drawn.file).read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0])["dialogue"]["id"] == drawn.benchmark.items[0].dialogue_id
    _label(path, truth, [item.dialogue_id for item in drawn.benchmark.items])

    with RunStore.open(path, create=False) as store:
        figures = run_statistics(store).chatbot_figures
        (sample,) = count_contents(store).audit_samples  # what `dialbench show` prints
    assert (sample.name, sample.dialogues, sample.labelled) == ("audit", 240, 240)
    german = {
        f.chatbot: f
        for f in figures
        if f.dimension == "issues.lacks_empathy" and f.language == "de"
    }
    for chatbot in ("bot-a", "bot-b"):
        row = german[chatbot]
        assert row.labelled == 20
        assert row.corrected is not None
        assert row.corrected_low is not None
        assert row.corrected_high is not None
        assert row.bias is not None
        # the judge flags about 30 points too many in German; the correction removes most of it
        assert row.value - row.corrected > 0.1
        assert row.bias > 0.1

    plan = CliRunner().invoke(app, ["audit", "plan", "--width", "0.3", "--pilot", str(path)])
    assert plan.exit_code == 0, plan.output
    assert "labels needed" in plan.output

    report = write_report(RunStore.open(path, create=False), path / "report")
    titles = [section.title for section in report.sections]
    assert "Figures corrected by human labels" in titles
    table = pd.read_csv(path / "report" / "tables" / "corrected_figures.csv")
    assert {"corrected", "corrected_low", "bias", "judge_weight", "labelled"} <= set(table)

    corrected = compare_versions(path, chatbots=["bot-a", "bot-b"], basis="corrected")
    assert {row.design for row in corrected.rows} == {"corrected"}
    raw = compare_versions(path, chatbots=["bot-a", "bot-b"], basis="raw")
    assert "corrected" not in {row.design for row in raw.rows}
    assert "probability sample" in corrected.figures


def test_labels_on_a_curated_benchmark_correct_nothing_and_say_why(
    tmp_path: Path, simulated: tuple[Path, dict[str, Annotation]]
) -> None:
    dialogues, judgments, truth = _example().simulate(seeds=12, random_seed=1)
    path = tmp_path / "curated"
    picked = [d.id for d in dialogues[:30]]
    with RunStore.open(path) as store, store.invocation("test") as run:
        store.add(dialogues, run)
        store.add(judgments, run)
        store.add(
            [
                Benchmark(
                    name="medal",
                    items=[
                        BenchmarkItem(dialogue_id=d, language="en", reason="balanced")
                        for d in picked
                    ],
                )
            ],
            run,
        )
        store.add(truth[:30], run)
    with RunStore.open(path, create=False) as store:
        figures = run_statistics(store).chatbot_figures
    assert all(f.corrected is None for f in figures)
    result = CliRunner().invoke(
        app,
        [
            "compare",
            str(path),
            "--chatbot",
            "bot-a",
            "--chatbot",
            "bot-b",
            "--figures",
            "corrected",
        ],
    )
    assert "curated benchmark 'medal', which is not a probability sample" in str(result.exception)


def test_audit_commands(tmp_path: Path) -> None:
    dialogues, judgments, _ = _example().simulate(seeds=5, random_seed=2)
    path = tmp_path / "run"
    with RunStore.open(path) as store, store.invocation("test") as run:
        store.add(dialogues, run)
        store.add(judgments, run)
    runner = CliRunner()
    drawn = runner.invoke(app, ["audit", "draw", str(path), "--per-cell", "3", "--seed", "1"])
    assert drawn.exit_code == 0, drawn.output
    assert "de×bot-a" in drawn.output
    status = runner.invoke(app, ["audit", "status", str(path)])
    assert "audit" in status.output
    assert status.exit_code == 0
    refused = runner.invoke(
        app, ["audit", "draw", str(path), "--per-cell", "3", "--oversample-flagged", "2"]
    )
    assert "--oversample-flagged needs --judge" in str(refused.exception)
    plan = runner.invoke(
        app, ["audit", "plan", "--width", "0.2", "--correlation", "0.8", "--population", "500"]
    )
    assert plan.output.startswith("40 labels per language x chatbot")
