"""The trained metric as a pipeline stage on real DBDC3 dialogues: import, train and score,
then meta-evaluation against the humans; a second run is up to date, nothing is asked twice."""

from __future__ import annotations

from pathlib import Path

import yaml

from dialbench.metrics.api import MetricScoreResult
from dialbench.metrics.saved_metric import load_model
from dialbench.pipeline.config import load_pipeline
from dialbench.pipeline.execute import run_pipeline
from dialbench.pipeline.stage import StageResult
from dialbench.schema import Judgment
from dialbench.store import RunStore
from tests.metrics.test_metric_cli import CONFIG


def test_train_score_and_metaeval_in_one_pipeline(tmp_path: Path, dbdc_slice: Path) -> None:
    (tmp_path / "metric.yaml").write_text(CONFIG)  # data.runs: [run], beside the pipeline file
    pipeline = {
        "run": "run",
        "stages": [
            {"stage": "import", "name": "dbdc3", "file": str(dbdc_slice)},
            {"stage": "import", "name": "humans", "file": str(dbdc_slice)}
            | {"records": "annotations"},
            {
                "stage": "metric",
                "train": "metric.yaml",
                "model": "model",
                "heldout_only": True,
                "human_labels": True,
            },
            {"stage": "metaeval", "protocol": "metric:sensibleness"},
        ],
    }
    path = tmp_path / "pipeline.yaml"
    path.write_text(yaml.safe_dump(pipeline), encoding="utf-8")
    config = load_pipeline(path)
    outputs: dict[str, StageResult | None] = {}
    report = run_pipeline(
        config, tmp_path / "run", listener=lambda r, out: outputs.__setitem__(r.name, out)
    )
    assert {s.name: s.status for s in report.stages} == dict.fromkeys(
        ("dbdc3", "humans", "metric", "metaeval"), "ran"
    )
    info = load_model(tmp_path / "model").info
    scored = outputs["metric"]
    assert scored is not None
    assert "held-out Pearson: en" in scored.summary
    assert isinstance(scored.result, MetricScoreResult)
    assert scored.result.human_labels > 0
    with RunStore.open(tmp_path / "run") as store:
        judgments = list(store.records(Judgment, protocol="metric:sensibleness"))
    assert {j.target.dialogue_id for j in judgments} == set(info.heldout_dialogues)
    metaeval = (tmp_path / "run" / "metaeval" / "report.json").read_text()
    assert info.judge_model in metaeval

    again = run_pipeline(config, tmp_path / "run")
    assert {s.status for s in again.stages} == {"up to date"}
