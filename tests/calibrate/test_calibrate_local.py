"""The packaged Gemma judges the sensibleness of every chatbot turn of two English DBDC3
dialogues by its expected score; calibrate maps it onto the humans' breakdown labels, each turn
out of fold (one dialogue fits, the other is scored), and metaeval sets raw and calibrated side
by side, through the console script."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import DIALBENCH

# 21 calls of the 270M model: 5 min 37 s on 2 cores shared with a 1.5B judge (both languages,
# 42 calls, took 15 minutes there).
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]
JUDGE = "local:gemma3-270m"
FIT = ("--pair", "breakdown=sensibleness", "--scale", "breakdown=ordinal:X,T,O")


def dialbench(folder: Path, *args: str) -> str:
    done = subprocess.run(
        [str(DIALBENCH), *args], cwd=folder, capture_output=True, text=True, timeout=1500,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_local_judge_calibrated_beside_its_own_answers(tmp_path: Path) -> None:
    sample = dialbench(tmp_path, "examples", "dbdc3_sample").strip()
    dialbench(tmp_path, "import", sample, "--run", "runs/d")
    dialbench(tmp_path, "import", sample, "--records", "annotations", "--run", "runs/d")
    dialbench(
        tmp_path, "judge", "runs/d", "--protocol", "submetrics", "--judge", JUDGE, "--limit", "2",
        "--language", "en",
        "--option", "dimensions=sensibleness", "--option", "scoring=expected", "--quiet",
    )  # fmt: skip
    printed = dialbench(tmp_path, "calibrate", "runs/d", *FIT, "--bootstrap", "200")
    assert "wrote calibration" in printed
    calibration = json.loads((tmp_path / "runs/d/calibration.json").read_text())
    assert {m["cell"]["language"] for m in calibration["maps"]} == {"en"}
    assert {m["n_dialogues"] for m in calibration["maps"]} == {2}
    dialbench(
        tmp_path, "metaeval", "runs/d", "--protocol", "submetrics", *FIT, "--bootstrap", "200"
    )
    report = json.loads((tmp_path / "runs/d/metaeval/report.json").read_text())
    raters = {r["rater"] for r in report["correlation"] if r["language"] == "all"}
    assert any(r.startswith(f"{JUDGE} [c-") for r in raters), raters
    assert any(r.startswith(f"{JUDGE} (calibrated) [c-") for r in raters), raters
