"""Distillation end to end, all real: the bundled DBDC3 sample imported with its human labels,
the last chatbot turn of each dialogue judged by the packaged Gemma, a metric trained on those
judgments with the real encoder by the `metric` stage of the same pipeline, the held-out turns
scored, and both raters meta-evaluated against the humans; a second run is up to date."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from dialbench import examples
from dialbench.metrics.saved_metric import load_model
from dialbench.pipeline.config import load_pipeline
from dialbench.pipeline.execute import run_pipeline
from dialbench.pipeline.graph import build_graph
from dialbench.schema import Judgment
from dialbench.store import RunStore

# 16 calls of the 270M model (the last chatbot turn of 4 dialogues per language), the encoder.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]
JUDGE = "local:gemma3-270m"
CONFIG = """\
name: distilled
data: {runs: [run]}
objective: judge
teacher: {protocol: submetrics, dimension: sensibleness}
holdout: {fraction: 0.3, seed: 0}
"""
ORDINAL = {
    "scales": {"breakdown": {"scale": "ordinal", "order": ["X", "T", "O"]}},
    "bootstrap_resamples": 100,
}


def test_the_metric_stage_distils_the_judge_stage_before_it(tmp_path: Path) -> None:
    sample = examples.bundled()["dbdc3_sample"]
    (tmp_path / "distil.yaml").write_text(CONFIG, encoding="utf-8")
    stages = [
        {"stage": "import", "name": "dbdc3", "file": str(sample)},
        {"stage": "import", "name": "humans", "file": str(sample), "records": "annotations"},
        {"stage": "judge", "protocol": "submetrics", "judges": [JUDGE], "limit": 4}
        | {"options": {"turns": "last"}},
        {"stage": "metric", "train": "distil.yaml", "model": "model", "heldout_only": True}
        | {"turns": "last"},
        {"stage": "metaeval", "protocol": "metric:distilled", "options": ORDINAL}
        | {"pairs": {"sensibleness": "breakdown"}},
    ]
    path = tmp_path / "pipeline.yaml"
    path.write_text(yaml.safe_dump({"run": "run", "stages": stages}), encoding="utf-8")
    config = load_pipeline(path)
    graph = {node.name: node for node in build_graph(list(config.stages), tmp_path / "run")}
    assert "judge" in graph["metric"].inputs  # trains on what the judge stage wrote

    report = run_pipeline(config, tmp_path / "run")
    failed = [f"{s.name}: {s.summary}" for s in report.stages if s.status == "failed"]
    assert {s.name: s.status for s in report.stages} == dict.fromkeys(graph, "ran"), failed
    info = load_model(tmp_path / "model").info
    assert (info.objective, info.encoder.name) == ("judge", "usem3")
    assert info.config["teacher"] == {
        "protocol": "submetrics",
        "dimension": "sensibleness",
        "judge": JUDGE,
        "configuration": info.config["teacher"]["configuration"],  # type: ignore[index]
    }
    with RunStore.open(tmp_path / "run") as store:
        taught = [
            j for j in store.records(Judgment, protocol="submetrics") if j.parse_status == "ok"
        ]
        scored = list(store.records(Judgment, protocol="metric:distilled"))
    assert sum(info.n_train.values()) + sum(d.n_items for d in info.dev) == len(taught)
    assert {j.target.dialogue_id for j in scored} == set(info.heldout_dialogues)
    assert all(j.result is not None and "sensibleness" in j.result for j in scored)

    metaeval = json.loads((tmp_path / "run" / "metaeval" / "report.json").read_text())
    assert info.judge_model in {row["rater"] for row in metaeval["correlation"]}

    again = run_pipeline(config, tmp_path / "run")
    assert {s.status for s in again.stages} == {"up to date"}
