"""Meta-evaluation from a run store, from files alone, and on real DBDC3 annotations."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import krippendorff
import numpy as np
import pytest

from dialbench.errors import InputErrors
from dialbench.io.long_format import read_ratings
from dialbench.metaeval.evaluate import meta_evaluate
from dialbench.ratings import from_store
from dialbench.schema import Dialogue
from dialbench.store import RunStore
from tests.conftest import SHARED_DATA, RunCli

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def write_jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    return path


def labels(empathy: bool, repetitive: bool, overall: int) -> dict[str, object]:
    return {"issues": {"lacks_empathy": empathy, "repetitive": repetitive}, "overall": overall}


def test_a_run_with_annotations_and_judgments(
    cli: RunCli, tmp_path: Path, example_jsonl: Path
) -> None:
    run = tmp_path / "run"
    cli("import", example_jsonl, "--run", run)
    with RunStore.open(run) as store:
        ids = [d.id for d in store.records(Dialogue)]
    rng = np.random.default_rng(3)
    truth = [(bool(rng.integers(2)), bool(rng.integers(2)), int(rng.integers(1, 6))) for _ in ids]
    annotations, judgments = [], []
    for i, (dialogue_id, (e, r, o)) in enumerate(zip(ids, truth, strict=True)):
        for annotator, flip in (("ann-1", False), ("ann-2", i % 4 == 0)):
            annotations.append(
                {
                    "annotator_id": annotator,
                    "target": {"dialogue_id": dialogue_id},
                    "labels": labels(e != flip, r, o),
                }
            )
        judged = {
            "protocol": "issues",
            "judge_model": "local:qwen2.5-0.5b",
            "target": {"dialogue_id": dialogue_id},
        }
        if i == 5:
            judgments.append({**judged, "parse_status": "unscored", "raw_output": "{not json"})
        else:
            judgments.append(
                {
                    **judged,
                    "parse_status": "ok",
                    "result": labels(e or i % 3 == 0, r, max(1, o - i % 2)),
                }
            )
    cli(
        "import",
        write_jsonl(tmp_path / "ann.jsonl", annotations),
        "--records",
        "annotations",
        "--run",
        run,
    )
    cli(
        "import",
        write_jsonl(tmp_path / "judg.jsonl", judgments),
        "--records",
        "judgments",
        "--run",
        run,
    )

    shown = cli("metaeval", run, "--bootstrap", "200").stdout
    assert "Human agreement" in shown
    assert "Detection against each annotator" in shown
    folder = run / "metaeval"
    report = json.loads((folder / "report.json").read_text())
    dimensions = {row["dimension"] for row in report["agreement"]}
    assert dimensions == {"issues.lacks_empathy", "issues.repetitive", "overall"}
    assert {row["language"] for row in report["agreement"]} >= {"all", "en", "zh", "de", "fr", "es"}
    unscored = [u for u in report["unscored"] if u["language"] == "de"]
    assert unscored
    assert unscored[0]["unscored"] == 1
    repetitive = [
        d
        for d in report["detection"]
        if d["dimension"] == "issues.repetitive" and d["language"] == "all"
    ]
    assert {d["rater"] for d in repetitive} == {"local:qwen2.5-0.5b", "human (ceiling)"}
    assert all(d["f1_positive"] == 1.0 for d in repetitive)  # both copied r from the same truth
    for name in ("detection_all.png", "correlation_overall.png"):
        assert (folder / name).read_bytes()[:8] == PNG_SIGNATURE
    markdown = (folder / "report.md").read_text()
    assert "## Detection against each annotator (averaged)" in markdown
    assert "![detection_all](detection_all.png)" in markdown
    for table in (
        "agreement",
        "detection",
        "mcnemar",
        "classification",
        "correlation",
        "unscored",
        "distribution",
    ):
        assert (folder / f"{table}.csv").exists()


def test_files_alone_in_the_long_format(cli: RunCli, tmp_path: Path) -> None:
    header = "item_id,annotator_or_judge,dimension,value,language\n"
    humans = header + "".join(
        f"d{i},{a},overall,{v},{lang}\n"
        for i, (lang, scores) in enumerate(
            [
                ("en", (4, 5)),
                ("en", (2, 2)),
                ("zh", (3, 4)),
                ("zh", (1, 2)),
                ("en", (5, 5)),
                ("zh", (2, 3)),
            ]
        )
        for a, v in zip(("h1", "h2"), scores, strict=True)
    )
    (tmp_path / "humans.csv").write_text(humans)
    judge = header + "".join(f"d{i},gpt,overall,{v},\n" for i, v in enumerate([5, 2, 3, 1, 4, ""]))
    (tmp_path / "judge.csv").write_text(judge)
    cli(
        "metaeval",
        "--against",
        tmp_path / "humans.csv",
        "--predictions",
        tmp_path / "judge.csv",
        "--language",
        "en",
        "--bootstrap",
        "200",
        "--output",
        tmp_path / "out",
    )
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    spearman = [
        c for c in report["correlation"] if c["method"] == "spearman" and c["rater"] == "gpt"
    ]
    assert {c["language"]: c["n_items"] for c in spearman} == {"all": 5, "en": 3, "zh": 2}
    rates = {u["language"]: u["rate"] for u in report["unscored"]}
    assert rates == {"all": pytest.approx(1 / 6), "en": 0.0, "zh": pytest.approx(1 / 3)}


def test_long_format_errors_are_line_numbered(tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(
        "item_id,annotator_or_judge,dimension,value\nd1,h1,overall,4\n,h1,overall,3\nd2,h1\n"
    )
    with pytest.raises(InputErrors) as raised:
        read_ratings(path, "human")
    message = str(raised.value)
    assert "bad.csv:3: field 'item_id': Field required" in message
    assert "bad.csv:4: 2 cells, but the header has 4" in message


def test_abc_eval_behaviour_format(tmp_path: Path) -> None:
    data = {
        "dlg-1": [
            {
                "user": "hi",
                "system": "hello",
                "behaviors": {
                    "empathetic": {"human": [1, 1], "gpt": 1},
                    "redundant": {"human": [0, 1], "gpt": 0},
                },
            },
            {
                "user": "ok",
                "system": "ok",
                "behaviors": {
                    "empathetic": {"human": [0, 0], "gpt": 1},
                    "redundant": {"human": [0, 0], "gpt": 0},
                },
            },
        ],
        "dlg-2": [
            {
                "user": "a",
                "system": "b",
                "behaviors": {
                    "empathetic": {"human": [1, 0], "gpt": 0},
                    "redundant": {"human": [1, 1], "gpt": 1},
                },
            },
        ],
    }
    path = tmp_path / "behaviors.json"
    path.write_text(json.dumps(data))
    ratings = read_ratings(path, "judge")
    assert {r.rater for r in ratings} == {"human-1", "human-2", "gpt"}
    assert {r.item_id for r in ratings} == {"dlg-1#0", "dlg-1#1", "dlg-2#0"}
    report = meta_evaluate(ratings)
    empathetic = [
        d
        for d in report.detection
        if d.dimension == "empathetic" and d.rater == "gpt" and d.language == "all"
    ]
    assert empathetic[0].n_references == 2
    path.write_text('{"dlg-1": [{"behaviors": {"x": {"human": 1}}}]}')
    with pytest.raises(InputErrors, match=r"dialogue dlg-1, turn 0\): field 'behaviors.x'"):
        read_ratings(path, "judge")
    path.write_text('{"dlg-1": [\n  {"behaviors": }\n]}')
    with pytest.raises(Exception, match=r"behaviors.json:2: invalid JSON"):
        read_ratings(path, "judge")


def test_alpha_on_real_dbdc3_annotations_matches_the_reliability_matrix(
    cli: RunCli, tmp_path: Path
) -> None:
    """Thirty annotators per system turn: our value-count path equals krippendorff's own
    computation from the raw annotator x item matrix."""
    small = tmp_path / "dbdc.zip"
    with (
        zipfile.ZipFile(SHARED_DATA / "dbdc3_breakdown_ja_en.zip") as source,
        zipfile.ZipFile(small, "w") as target,
    ):
        names = [
            n for n in source.namelist() if "dbdc3/ja/eval/DIT/" in n and n.endswith(".log.json")
        ][:4]
        for name in names:
            target.writestr(name, source.read(name))
    cli("import", small, "--run", tmp_path / "run")
    cli("import", small, "--records", "annotations", "--run", tmp_path / "run")
    with RunStore.open(tmp_path / "run") as store:
        ratings, _ = from_store(store)
    report = meta_evaluate(ratings)
    row = next(a for a in report.agreement if a.language == "ja")
    matrix: dict[str, dict[str, float]] = {}
    code = {"O": 0.0, "T": 1.0, "X": 2.0}
    for r in ratings:
        matrix.setdefault(r.rater, {})[r.item_id] = code[str(r.value)]
    items = sorted({r.item_id for r in ratings})
    reliability = np.array([[row_.get(i, np.nan) for i in items] for row_ in matrix.values()])
    expected = krippendorff.alpha(reliability_data=reliability, level_of_measurement="nominal")
    assert row.alpha == pytest.approx(expected)
    assert row.n_items == len(items)
    assert row.n_annotators == len(matrix) > 10
