"""The `calibrate` stage of `dialbench run`: it fits on the run's human labels after the stages
that write them, metaeval waits for it and sets raw and calibrated side by side, a second
pipeline applies the saved calibration to another run, and an unchanged pipeline is up to date."""

from __future__ import annotations

from pathlib import Path

import yaml

from dialbench import examples
from dialbench.pipeline.config import load_pipeline
from dialbench.pipeline.execute import run_pipeline
from dialbench.pipeline.graph import build_graph
from dialbench.schema import Judgment
from dialbench.store import RunStore
from tests.calibrate.dbdc3_judge import add_judgments, judgments, mean_positions

FIT = {
    "pairs": {"sensibleness": "breakdown"},
    "scales": {"breakdown": {"scale": "ordinal", "order": ["X", "T", "O"]}},
}


def pipeline(folder: Path, name: str, run: str, stages: list[dict[str, object]]) -> Path:
    path = folder / name
    path.write_text(yaml.safe_dump({"run": run, "stages": stages}), encoding="utf-8")
    return path


def test_the_calibrate_stage_fits_then_applies_in_another_run(tmp_path: Path) -> None:
    sample = str(examples.bundled()["dbdc3_sample"])
    dialogues = {"stage": "import", "name": "dbdc3", "file": sample}
    humans = {"stage": "import", "name": "humans", "file": sample, "records": "annotations"}
    labelled, fresh = tmp_path / "labelled", tmp_path / "fresh"
    run_pipeline(load_pipeline(pipeline(tmp_path, "data.yaml", "labelled", [dialogues, humans])),
                 labelled)  # fmt: skip
    add_judgments(labelled, judgments(mean_positions(labelled)))
    fit = pipeline(tmp_path, "fit.yaml", "labelled", [
        dialogues, humans,
        {"stage": "calibrate", "protocol": "submetrics", "fit": FIT, "bootstrap_resamples": 100},
        {"stage": "metaeval", "protocol": "submetrics", "pairs": FIT["pairs"],
         "options": {"scales": FIT["scales"], "bootstrap_resamples": 100}},
    ])  # fmt: skip
    config = load_pipeline(fit)
    graph = {node.name: node for node in build_graph(list(config.stages), labelled)}
    assert graph["calibrate"].inputs == ("humans",)
    assert "calibrate" in graph["metaeval"].inputs

    report = run_pipeline(config, labelled)
    statuses = {s.name: s.status for s in report.stages}
    assert statuses == {"dbdc3": "up to date", "humans": "up to date"} | dict.fromkeys(
        ("calibrate", "metaeval"), "ran"
    )
    assert "written to" in report.stages[2].summary
    assert "(calibrated)" in (labelled / "metaeval" / "correlation.csv").read_text()
    again = run_pipeline(config, labelled)
    assert {s.status for s in again.stages} == {"up to date"}

    run_pipeline(load_pipeline(pipeline(tmp_path, "new.yaml", "fresh", [dialogues])), fresh)
    add_judgments(fresh, judgments(mean_positions(labelled)))
    apply = pipeline(tmp_path, "apply.yaml", "fresh", [
        dialogues, {"stage": "calibrate", "apply": "labelled/calibration.json"},
    ])  # fmt: skip
    applied = run_pipeline(load_pipeline(apply), fresh)
    assert "applied from" in applied.stages[1].summary
    with RunStore.open(fresh, create=False) as store:
        calibrated = [
            j
            for j in store.records(Judgment)
            if j.configuration is not None and j.configuration.calibration
        ]
    assert len(calibrated) == 168
