"""DiQAD's classifiers as a pipeline stage, as users run it: `dialbench run` imports graded
dialogues and their annotations, trains and saves a classifier on the run's own labels and
prints its tables; a second run is up to date."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from dialbench.errors import DialbenchError
from dialbench.metrics.diqad.saved_classifier import load_classifier
from dialbench.pipeline.config import load_pipeline
from tests.conftest import RunCli
from tests.metrics.helpers import graded_files

DIQAD = {
    "stage": "diqad",
    "classifiers": ["lr"],
    "holdout": 0.3,
    "save": "model",
    "metric_name": "quality-lr",
}


def write_pipeline(folder: Path, diqad: dict[str, object]) -> Path:
    graded_files(folder)
    pipeline = {
        "run": "run",
        "stages": [
            {"stage": "import", "file": "dialogues.jsonl"},
            {"stage": "import", "file": "annotations.jsonl", "records": "annotations"},
            diqad,
        ],
    }
    path = folder / "pipeline.yaml"
    path.write_text(yaml.safe_dump(pipeline, sort_keys=False), encoding="utf-8")
    return path


def test_the_stage_trains_on_the_runs_labels_and_saves(cli: RunCli, tmp_path: Path) -> None:
    write_pipeline(tmp_path, DIQAD)
    shown = cli("run", "pipeline.yaml").stdout
    assert "[diqad] done" in shown
    assert "60 dialogues (0: 20, 1: 20, 2: 20)" in shown
    for title in ("held-out dialogues", "trained without a domain", "user reaction appended"):
        assert title in shown
    info, _ = load_classifier(tmp_path / "model")
    assert (info.name, info.classifier, info.dimension) == ("quality-lr", "lr", "quality")
    assert f"saved {info.judge_model} to model" in shown, "beside the pipeline file"
    assert info.n_train + len(info.heldout_dialogues) == 60
    assert "[diqad] up to date" in cli("run", "pipeline.yaml").stdout


def test_a_bad_stage_is_reported_at_its_line(tmp_path: Path) -> None:
    path = write_pipeline(tmp_path, DIQAD | {"classifiers": ["lr", "nope"]})
    with pytest.raises(DialbenchError) as error:
        load_pipeline(path)
    assert "pipeline.yaml:11: field 'stages.2.diqad.classifiers.1'" in str(error.value)
    assert "unknown DiQAD classifier 'nope' (known: bayes, lr, gb, encoder)" in str(error.value)
    path = write_pipeline(tmp_path, DIQAD | {"classifiers": ["lr", "gb"]})
    with pytest.raises(DialbenchError, match="give exactly one classifier"):
        load_pipeline(path)


def test_a_pipeline_file_is_checked_without_scikit_learn(tmp_path: Path) -> None:
    path = write_pipeline(tmp_path, DIQAD)
    check = (
        "import sys; from dialbench.pipeline.config import load_pipeline; "
        f"load_pipeline({str(path)!r}); print('sklearn' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", check], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip() == "False"
