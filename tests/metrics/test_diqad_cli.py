"""`dialbench metric diqad`: train, test and save DiQAD classifiers on real DBDC3 dialogues, then
judge a run with the saved one. DBDC3 has no dialogue-level quality, so each dialogue is graded
0/1/2 by its share of breakdown labels (tertiles), as benchmarks/metric_diqad.py does."""

from __future__ import annotations

from pathlib import Path

import pytest

from dialbench import import_file
from dialbench.errors import DialbenchError
from dialbench.io.importer import ImportOptions, load_records
from dialbench.metrics.diqad.data import breakdown_grades
from dialbench.metrics.diqad.saved_classifier import load_classifier
from dialbench.schema import Annotation, Dialogue, Judgment
from dialbench.store import RunStore
from tests.conftest import RunCli
from tests.metrics.helpers import graded_files


def graded_file(source: Path, out: Path) -> dict[str, int]:
    """The dialogues of `source` as JSONL with `quality` (0/1/2) and `bot` in their metadata."""
    dialogues = [r for _, r in load_records(source, ImportOptions()) if isinstance(r, Dialogue)]
    annotations = load_records(source, ImportOptions(records="annotations"))
    grades = breakdown_grades(dialogues, (a for _, a in annotations if isinstance(a, Annotation)))
    labels = {d.id: grade for d, grade in zip(dialogues, grades, strict=True)}
    bot = {d.id: str(d.metadata["dataset"]).split("_")[0] for d in dialogues}
    out.write_text(
        "".join(
            d.model_copy(
                update={"metadata": {**d.metadata, "quality": labels[d.id], "bot": bot[d.id]}}
            ).model_dump_json()
            + "\n"
            for d in dialogues
        )
    )
    return labels


@pytest.mark.slow  # the encoder classifier runs the packaged sentence encoder
def test_train_test_save_and_score(cli: RunCli, tmp_path: Path, dbdc_slice: Path) -> None:
    labels = graded_file(dbdc_slice, tmp_path / "graded.jsonl")
    assert set(labels.values()) == {0, 1, 2}
    shown = cli(
        "metric", "diqad", "train", tmp_path / "graded.jsonl", "--domain", "bot",
        "--classifier", "bayes", "--classifier", "encoder", "--holdout", "0.3",
    ).stdout  # fmt: skip
    assert f"{len(labels)} dialogues" in shown
    for title in ("held-out dialogues", "trained without a domain", "user reaction appended"):
        assert title in shown
    for bot in ("CIC", "IRIS", "TKTK", "YI", "DCM", "DIT", "IRS"):
        assert bot in shown  # one cross-domain row per chatbot
    assert "encoder" in shown

    cli(
        "metric", "diqad", "train", tmp_path / "graded.jsonl", "--classifier", "bayes",
        "--holdout", "0.3", "--save", tmp_path / "model", "--name", "quality-nb",
    )  # fmt: skip
    with RunStore.open(tmp_path / "run") as store:
        import_file(store, dbdc_slice, ImportOptions())
    scored = cli("metric", "diqad", "score", tmp_path / "model", tmp_path / "run").stdout
    assert f"{len(labels)} dialogue(s) judged on quality" in scored
    with RunStore.open(tmp_path / "run") as store:
        judgments = list(store.records(Judgment, protocol="metric:quality-nb"))
    assert {j.target.dialogue_id for j in judgments} == set(labels)
    assert {j.target.turn_index for j in judgments} == {None}
    assert {int(j.result["quality"]) for j in judgments} <= {0, 1, 2}  # type: ignore[call-overload,index]


def test_train_prints_the_data_and_three_tables(cli: RunCli, tmp_path: Path) -> None:
    dialogues, _ = graded_files(tmp_path)
    shown = cli(
        "metric", "diqad", "train", dialogues, "--classifier", "bayes", "--classifier", "lr",
        "--holdout", "0.3",
    ).stdout  # fmt: skip
    assert shown.startswith("60 dialogues (0: 20, 1: 20, 2: 20); 11 held out; 3 domain(s)\n")
    for title in ("held-out dialogues", "trained without a domain", "user reaction appended"):
        assert title in shown
    assert "saved" not in shown


def test_bad_requests_are_one_line_errors(cli: RunCli, tmp_path: Path) -> None:
    many = cli("metric", "diqad", "train", tmp_path, "--save", tmp_path / "m", ok=False)
    assert "give exactly one classifier" in many.stderr
    assert "Traceback" not in many.stderr
    with pytest.raises(DialbenchError, match="not a saved DiQAD classifier"):
        load_classifier(tmp_path)
