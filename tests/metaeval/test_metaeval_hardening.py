"""Meta-evaluation as a researcher with a published human-rated set would run it, and as a
hostile file would try to break it."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from tests.conftest import RunCli

HEADER = "item_id,annotator_or_judge,dimension,value,language,kind\n"


def long_csv(path: Path, rows: list[tuple[object, ...]]) -> Path:
    path.write_text(HEADER + "".join(",".join(map(str, r)) + "\n" for r in rows), encoding="utf-8")
    return path


def human_rows(n: int = 40, dimension: str = "overall") -> list[tuple[object, ...]]:
    return [
        (f"d{i}", rater, dimension, 1 + (i + shift) % 5, "", "")
        for i in range(n)
        for rater, shift in (("h1", 0), ("h2", i % 7 == 0))
    ]


def test_a_rater_rating_an_item_twice_is_named_with_both_lines(cli: RunCli, tmp_path: Path) -> None:
    rows = [("d1", "h1", "overall", 4, "", ""), ("d1", "h2", "overall", 4, "", "")]
    path = long_csv(tmp_path / "humans.csv", [*rows, ("d1", "h1", "overall", 2, "", "")])
    done = cli("metaeval", "--against", path, "-o", tmp_path / "out", ok=False)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "humans.csv:4: h1 already rated item d1 on overall at line 2" in done.stderr


def test_dimensions_of_different_names_are_paired_on_request(cli: RunCli, tmp_path: Path) -> None:
    humans = long_csv(tmp_path / "humans.csv", human_rows())
    judge = long_csv(
        tmp_path / "judge.csv",
        [(f"d{i}", "gpt", "sensibleness", 1 + i % 5, "", "") for i in range(40)],
    )
    unpaired = cli("metaeval", "--against", humans, "--predictions", judge, "-o", "a").stdout
    assert "sensibleness: judges only" in unpaired
    assert "overall: human ratings only, no judge rates it" in unpaired
    cli("metaeval", "--against", humans, "--predictions", judge, "--pair", "overall=sensibleness")
    report = json.loads((tmp_path / "metaeval" / "report.json").read_text())
    spearman = [c for c in report["correlation"] if c["method"] == "spearman"]
    assert {(c["dimension"], c["rater"]) for c in spearman} >= {("overall", "gpt")}
    assert next(c for c in spearman if c["rater"] == "gpt")["r"] > 0.9


def test_one_language_prints_the_all_tables_all_methods_and_the_scale_as_reported(
    cli: RunCli, tmp_path: Path
) -> None:
    humans = human_rows() + [
        (f"d{i}", r, "flag", i % 2, "", "") for i in range(40) for r in ("h1", "h2")
    ]
    judge = [(f"d{i}", "gpt", "overall", 1 + i % 5, "", "") for i in range(40)]
    against, predictions = long_csv(tmp_path / "h.csv", humans), long_csv(tmp_path / "j.csv", judge)
    shown = cli("metaeval", "--against", against, "--predictions", predictions).stdout
    assert "warning" not in shown
    assert " und " not in shown
    assert "no rating names a language, so every item counts as 'und' (undetermined)" in shown
    assert "binary (α nominal)" in shown
    assert "pearson" in shown
    assert "spearman" in shown
    assert "Kendall" in shown
    markdown = (tmp_path / "metaeval" / "report.md").read_text()
    assert all(f"| {method}" in markdown for method in ("pearson", "spearman", "kendall"))
    spearman = next(line for line in markdown.splitlines() if "| spearman" in line)
    assert spearman.split("|")[8].strip() == "0.002"  # the least 1,000 resamples can show: 2/1001


def test_a_kind_column_says_which_rows_are_judges(cli: RunCli, tmp_path: Path) -> None:
    judged = [(f"d{i}", "local:qwen2.5-0.5b", "overall", 1 + i % 5, "", "") for i in range(40)]
    without_kind = long_csv(tmp_path / "mixed.csv", human_rows() + judged)
    warned = cli("metaeval", "--against", without_kind, "-o", "a").stdout
    assert "rater 'local:qwen2.5-0.5b' looks like a model spec but counts as a human" in warned
    marked = [(*row[:5], "judge") for row in judged]
    with_kind = long_csv(tmp_path / "marked.csv", human_rows() + marked)
    shown = cli("metaeval", "--against", with_kind, "-o", "b").stdout
    assert "warning" not in shown
    report = json.loads((tmp_path / "b" / "report.json").read_text())
    assert report["agreement"][0]["n_annotators"] == 2
    assert {c["rater"] for c in report["correlation"]} >= {"local:qwen2.5-0.5b"}


def test_names_from_files_cannot_inject_into_markdown_csv_or_the_terminal(
    cli: RunCli, tmp_path: Path
) -> None:
    hostile = ["<script>alert(1)</script>", '=HYPERLINK(""https://evil.example"")', "[/]"]
    rows = human_rows()
    for name in hostile:
        rows += [(f"d{i}", f'"{name}"', "overall", 1 + i % 5, "", "judge") for i in range(40)]
    path = long_csv(tmp_path / "hostile.csv", rows)
    done = cli("metaeval", "--against", path)
    assert "[/]" in done.stdout
    markdown = (tmp_path / "metaeval" / "report.md").read_text()
    assert "<script>" not in markdown
    assert "&lt;script&gt;" in markdown
    with (tmp_path / "metaeval" / "correlation.csv").open(newline="") as stream:
        raters = {row["rater"] for row in csv.DictReader(stream)}
    assert '\'=HYPERLINK("https://evil.example")' in raters
    assert not any(r.startswith("=") for r in raters)


def test_judgments_and_annotations_export_in_the_long_format_metaeval_reads(
    cli: RunCli, tmp_path: Path
) -> None:
    dialogues, judgments, annotations = [], [], []
    for i in range(12):
        dialogues.append(
            {
                "id": f"c{i}",
                "language": "de",
                "turns": [{"role": "user", "text": "Hallo"}, {"role": "assistant", "text": "Hi"}],
            }
        )
        target = {"dialogue_id": f"c{i}", "turn_index": 1}
        judgments.append(
            {
                "protocol": "issues",
                "judge_model": "=judge",
                "target": target,
                "parse_status": "ok",
                "result": {"overall": 1 + i % 5},
            }
        )
        annotations += [
            {"annotator_id": a, "target": target, "labels": {"overall": 1 + (i + s) % 5}}
            for a, s in (("h1", 0), ("h2", i % 4 == 0))
        ]
    for name, records in (
        ("dialogues", dialogues),
        ("judgments", judgments),
        ("annotations", annotations),
    ):
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        cli("import", path, "--records", name, "--run", "run")
    done = cli("export", "run", "--format", "long-csv", "--records", "judgments")
    assert "wrote 12 rows to run/export/judgments.long.csv" in done.stdout
    exported = tmp_path / "run" / "export" / "judgments.long.csv"
    with exported.open(newline="") as stream:
        rows = list(csv.DictReader(stream))
    assert rows[0] == {
        "item_id": "c0#1",
        "annotator_or_judge": "'=judge",
        "dimension": "overall",
        "value": "1.0",
        "language": "de",
        "kind": "judge",
    }
    cli("export", "run", "--format", "long-csv", "--records", "annotations", "-o", "humans.csv")
    cli("metaeval", "--against", "humans.csv", "--predictions", exported, "-o", "out")
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert {c["language"] for c in report["correlation"]} == {"all", "de"}
    assert {c["rater"] for c in report["correlation"]} >= {"=judge"}  # read back without the '"


def test_a_numeric_judge_is_correlated_with_humans_ordered_labels(
    cli: RunCli, tmp_path: Path
) -> None:
    """DBDC3's X/T/O breakdown labels against a 1-5 sensibleness judge: ranks compared, the
    judge's values shown as its numbers, no label-matching statistic."""
    labels = "XTO"
    humans = long_csv(
        tmp_path / "humans.csv",
        [
            (f"d{i}", rater, "breakdown", labels[(i + shift) % 3], "en", "")
            for i in range(30)
            for rater, shift in (("h1", 0), ("h2", int(i % 5 == 0)))
        ],
    )
    judge = long_csv(
        tmp_path / "judge.csv",
        [(f"d{i}", "gpt", "sensibleness", 1 + 2 * (i % 3), "en", "") for i in range(30)],
    )
    printed = cli(
        "metaeval", "--against", humans, "--predictions", judge,
        "--pair", "breakdown=sensibleness", "--scale", "breakdown=ordinal:X,T,O",
    ).stdout  # fmt: skip
    assert "breakdown: the judges answer in numbers, compared by correlation only" in printed
    report = json.loads((tmp_path / "metaeval" / "report.json").read_text())
    spearman = [c for c in report["correlation"] if c["method"] == "spearman"]
    assert next(c for c in spearman if c["rater"] == "gpt")["r"] > 0.8
    assert not [c for c in report["classification"] if c["rater"] == "gpt"]
    judged = {d["value"] for d in report["distribution"] if d["rater"] == "gpt"}
    assert judged == {"1", "3", "5"}
