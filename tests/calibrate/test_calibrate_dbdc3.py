"""`dialbench calibrate` end to end on the bundled DBDC3 sample (16 dialogues, en and ja, 30
breakdown labels per chatbot turn) with a judge written without a model: the fitted maps and
their cross-validated table, the calibrated judgments beside the raw ones in metaeval, a saved
calibration applied to another run, and the mistakes a user can make, each in one line."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from dialbench.calibrate.calibration_file import read_calibration
from dialbench.calibrate.config import IsotonicMap, ThresholdMap
from dialbench.calibrate.isotonic import apply_isotonic
from dialbench.errors import DialbenchError
from dialbench.schema import Dialogue, JudgeConfiguration, Judgment, Target, Turn
from dialbench.store import RunStore
from tests.calibrate.dbdc3_judge import (
    CONFIGURATION,
    FIT,
    JUDGE,
    add_judgments,
    judgments,
    mean_positions,
)
from tests.conftest import DIALBENCH

DETECT = ("--detect", "breakdown=X:judge<=2")


class Workspace:
    """A scratch folder shared by the module's tests, and `dialbench` run inside it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def __call__(self, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [str(DIALBENCH), *args], cwd=self.folder, capture_output=True, text=True,
            timeout=300, check=False,
        )  # fmt: skip
        if ok and done.returncode != 0:
            raise AssertionError(f"exit {done.returncode}\n{done.stdout}\n{done.stderr}")
        return done

    def imported(self, run: str, *, annotations: bool = True) -> Path:
        sample = self("examples", "dbdc3_sample").stdout.strip()
        self("import", sample, "--run", run)
        if annotations:
            self("import", sample, "--records", "annotations", "--run", run)
        return self.folder / run


def calibrated(run: Path) -> list[Judgment]:
    with RunStore.open(run, create=False) as store:
        return [
            j
            for j in store.records(Judgment)
            if j.configuration is not None and j.configuration.calibration
        ]


@pytest.fixture(scope="module")
def dialbench(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    return Workspace(tmp_path_factory.mktemp("calibrate"))


@pytest.fixture(scope="module")
def unlabelled(dialbench: Workspace) -> Path:
    """The sample's dialogues alone, imported once: tests copy it rather than import again."""
    return dialbench.imported("runs/unlabelled", annotations=False)


def copy_of(run: Path, name: str) -> Path:
    return Path(shutil.copytree(run, run.parent / name))


@pytest.fixture(scope="module")
def fitted(dialbench: Workspace) -> tuple[Path, str]:
    """runs/d judged and calibrated (an isotonic map and a threshold per language); the
    command's output."""
    run = dialbench.imported("runs/d")
    add_judgments(run, judgments(mean_positions(run)))
    done = dialbench("calibrate", "runs/d", *FIT, *DETECT, "--bootstrap", "200")
    return run, done.stdout


def test_calibration_fits_per_language_and_stores_out_of_fold_judgments(
    fitted: tuple[Path, str],
) -> None:
    run, printed = fitted
    calibration = read_calibration(run / "calibration.json")
    cells = {(m.cell.dimension, m.cell.language): m for m in calibration.maps}
    assert set(cells) == {(d, lang) for d in ("breakdown", "breakdown=X") for lang in ("en", "ja")}
    assert all(m.cell.judge_dimension == "sensibleness" for m in calibration.maps)
    assert isinstance(cells[("breakdown", "en")].map, IsotonicMap)
    threshold = cells[("breakdown=X", "ja")].map
    assert isinstance(threshold, ThresholdMap)
    assert (threshold.positive_at, threshold.rule) == ("most", "f1"), "the --detect side"
    assert cells[("breakdown", "en")].n_dialogues == 8
    rows = {(r.dimension, r.language): r for r in calibration.agreement}
    assert set(rows) == {
        (d, lang) for d in ("breakdown", "breakdown=X") for lang in ("en", "ja", "all")
    }
    assert rows[("breakdown", "all")].n_items == 168
    assert rows[("breakdown=X", "all")].figure == "f1"
    assert rows[("breakdown", "en")].raw.value is not None
    assert "Pearson r with the mean human value" in printed
    assert "positive at sensibleness <=" in printed
    assert f"wrote calibration {calibration.digest[:12]}" in printed
    assert "168 added" in printed

    stored = calibrated(run)
    assert len(stored) == 168, "one per labelled turn"
    for judgment in stored:
        assert judgment.configuration is not None
        assert judgment.configuration.calibration == calibration.digest
        assert judgment.judge_model == JUDGE
        assert judgment.result is not None
        assert set(judgment.result) == {"breakdown", "breakdown=X"}
        assert 0 <= float(judgment.result["breakdown"]) <= 2  # type: ignore[arg-type]
        assert isinstance(judgment.result["breakdown=X"], bool)
        assert judgment.raw_output.count("out of fold") == 2, "every turn here is labelled"
    raw = {j.target.dialogue_id for j in judgments(mean_positions(run))}
    assert {j.target.dialogue_id for j in stored} == raw


def test_metaeval_sets_raw_and_calibrated_side_by_side(
    dialbench: Workspace, fitted: tuple[Path, str]
) -> None:
    run, _ = fitted
    calibration = read_calibration(run / "calibration.json")
    dialbench("metaeval", "runs/d", "--protocol", "submetrics", *FIT, *DETECT, "--bootstrap", "100")
    report = json.loads((run / "metaeval" / "report.json").read_text())
    pearson = {
        (r["rater"], r["language"]): r["r"]
        for r in report["correlation"]
        if r["method"] == "pearson"
    }
    named = {rater for rater, _ in pearson}
    raw_name = f"{JUDGE} [{CONFIGURATION.fingerprint}]"
    [calibrated_name] = [n for n in named if n.startswith(f"{JUDGE} (calibrated) [c-")]
    assert raw_name in named
    for row in calibration.agreement:
        if row.dimension == "breakdown":
            assert pearson[(calibrated_name, row.language)] == pytest.approx(row.calibrated.value)
            assert pearson[(raw_name, row.language)] == pytest.approx(row.raw.value)
    detected = {(d["rater"], d["language"]) for d in report["detection"]}
    assert (calibrated_name, "all") in detected, "its own decisions, not the raw threshold"
    assert any(f"calibration {calibration.digest[:12]}" in note for note in report["notes"])


def test_a_saved_calibration_applies_to_a_new_run_without_labels(
    dialbench: Workspace, unlabelled: Path, fitted: tuple[Path, str]
) -> None:
    run, _ = fitted
    new = copy_of(unlabelled, "new")
    raw = judgments(mean_positions(run))
    german = Dialogue(
        language="de", turns=[Turn(role="user", text="Hallo"), Turn(role="assistant", text="Hi")]
    )
    with RunStore.open(new) as store, store.invocation("import") as record:
        store.add([german], record)
    extra = Judgment(
        protocol="submetrics", judge_model=JUDGE, configuration=CONFIGURATION,
        target=Target(dialogue_id=german.id, turn_index=1), result={"sensibleness": 4.0},
        parse_status="ok",
    )  # fmt: skip
    add_judgments(new, [*raw, extra])
    done = dialbench("calibrate", "runs/new", "--apply", "runs/d/calibration.json")
    assert "applied calibration" in done.stdout
    assert "1 dialogue(s) in de, a language the calibration has no map for" in done.stdout
    calibration = read_calibration(run / "calibration.json")
    final = {m.cell.language: m.map for m in calibration.maps if m.cell.dimension == "breakdown"}
    applied = {j.target.model_dump_json(): j for j in calibrated(new)}
    with RunStore.open(new, create=False) as store:
        languages = store.dialogue_placements()
    assert len(applied) == 168
    for judgment in raw:
        result = applied[judgment.target.model_dump_json()].result
        assert result is not None
        assert judgment.result is not None
        language = languages[judgment.target.dialogue_id][0]
        isotonic = final[language]
        assert isinstance(isotonic, IsotonicMap)
        expected = apply_isotonic(isotonic, np.array([judgment.result["sensibleness"]]))[0]
        assert result["breakdown"] == pytest.approx(expected)
    again = dialbench("calibrate", "runs/new", "--apply", "runs/d/calibration.json")
    assert "0 added, 168 unchanged" in again.stdout


def test_another_configuration_is_not_what_the_calibration_was_fitted_for(
    dialbench: Workspace, unlabelled: Path, fitted: tuple[Path, str]
) -> None:
    run, _ = fitted
    other = copy_of(unlabelled, "other")
    changed = JudgeConfiguration(options={"turns": "all", "scoring": "argmax"})
    add_judgments(other, judgments(mean_positions(run), changed))
    done = dialbench("calibrate", "runs/other", "--apply", "runs/d/calibration.json", ok=False)
    assert done.returncode == 1
    [line] = done.stderr.splitlines()
    assert f"no submetrics judgments of the calibrated judges and configurations ({JUDGE} [" in line


def test_base_rate_thresholds_are_stated(dialbench: Workspace, fitted: tuple[Path, str]) -> None:
    done = dialbench("calibrate", "runs/d", *FIT, "--detect", "breakdown=X", "--threshold",
                     "base-rate", "--bootstrap", "100", "-o", "rate.json")  # fmt: skip
    assert "(base-rate)" in done.stdout
    calibration = read_calibration(dialbench.folder / "rate.json")
    assert calibration.settings.threshold == "base-rate"
    [row] = [
        r for r in calibration.agreement if r.dimension == "breakdown=X" and r.language == "all"
    ]
    assert row.raw.value is None, "a judge in numbers makes no decision without --detect's side"
    assert row.note is not None
    assert "--detect" in row.note


def test_a_run_without_human_labels_says_how_to_get_them(
    dialbench: Workspace, unlabelled: Path, fitted: tuple[Path, str]
) -> None:
    bare = copy_of(unlabelled, "bare")
    add_judgments(bare, judgments(mean_positions(fitted[0])))
    done = dialbench("calibrate", "runs/bare", *FIT, ok=False)
    [line] = done.stderr.splitlines()
    assert line.startswith("error: runs/bare holds no human labels to calibrate against")
    assert "--records annotations" in line
    assert "dialbench serve runs/bare" in line


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "bad.json:1: not valid JSON"),
        ('{"protocol": "submetrics", "settings": {}, "maps": [{"cell": {}}]}', "field 'maps.0."),
        (
            '{"protocol": "submetrics", "settings": {"folds": 1}, "maps": []}',
            "bad.json: field 'settings.folds'",
        ),
    ],
)
def test_a_malformed_calibration_file_names_the_file_and_field(
    tmp_path: Path, content: str, message: str
) -> None:
    (tmp_path / "bad.json").write_text(content, encoding="utf-8")
    with pytest.raises(DialbenchError) as raised:
        read_calibration(tmp_path / "bad.json")
    assert message in str(raised.value).splitlines()[0]


def test_the_command_names_a_bad_calibration_file_in_one_line(
    dialbench: Workspace, fitted: tuple[Path, str]
) -> None:
    (dialbench.folder / "bad.json").write_text('{"protocol": 1}', encoding="utf-8")
    done = dialbench("calibrate", "runs/d", "--apply", "bad.json", ok=False)
    assert done.returncode == 1
    assert done.stderr.startswith("error: bad.json: field 'protocol'")
    assert "Traceback" not in done.stderr


def test_fitting_options_and_apply_do_not_mix(dialbench: Workspace) -> None:
    done = dialbench("calibrate", "runs/d", "--apply", "c.json", "--folds", "3", ok=False)
    assert done.returncode == 2
    assert "not both" in done.stderr
