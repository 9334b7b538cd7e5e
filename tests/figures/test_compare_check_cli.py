"""`dialbench compare` in each format and `dialbench check`'s exit codes, on the known runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dialbench.cli import app
from dialbench.errors import DialbenchError
from dialbench.figures.versions import Comparison
from tests.conftest import RunCli, piped
from tests.figures.known_versions import make_run

PASS, REGRESSION, USAGE = 0, 1, 2


def invoke(*args: str | Path) -> tuple[int, str]:
    done = CliRunner().invoke(app, [str(arg) for arg in args], env={"COLUMNS": "200"})
    return done.exit_code, done.output


def test_compare_prints_a_table_that_marks_what_holds(runs: dict[str, Path]) -> None:
    code, shown = invoke("compare", runs["baseline"], runs["worse"])
    assert code == 0, shown
    assert "4 worse and 0 better that hold" in shown.splitlines()[0]
    german = next(
        line for line in shown.splitlines() if "issues.repetitive" in line and " de " in line
    )
    assert german.split()[-1] == "worse"
    assert "+0.750" in german


@pytest.mark.parametrize("columns", [None, "80"])
def test_a_piped_table_names_each_rows_protocol_judge_dimension_and_language(
    runs: dict[str, Path], columns: str | None
) -> None:
    """Into a CI log (a pipe, no COLUMNS) every column, on lines as long as they need; at 80
    columns the other columns give way, never the ones that say what a row is."""
    compared = [runs["baseline"], runs["worse"]]
    rows = json.loads("\n".join(piped("compare", *compared, "-f", "json", columns=None)))["rows"]
    lines = piped("compare", *compared, columns=columns)
    header = next(line.split() for line in lines if line.split()[:2] == ["protocol", "judge"])
    for row in rows:
        named = [row["protocol"], row["judge"], row["dimension"], row["language"]]
        [line] = [line.split() for line in lines if line.split()[:4] == named]
        assert ("worse" in line) == row["holds"], line
    if columns is None:
        assert {"detectable", "note"} <= set(header)
    else:
        assert max(map(len, lines)) <= 80
        assert header[-2:] == ["difference", "holds"]
        assert any(line.startswith("left out to fit 80 columns: note,") for line in lines)


def test_compare_writes_markdown_for_a_pull_request(runs: dict[str, Path]) -> None:
    code, markdown = invoke("compare", runs["baseline"], runs["worse"], "--format", "markdown")
    assert code == 0, markdown
    headline, blank, header, *rest = markdown.splitlines()
    assert headline.startswith("**dialbench compare**: ")
    assert blank == ""
    assert header.startswith("| protocol")
    assert rest[-3].startswith("first = candidate, second = baseline")
    assert rest[-1].startswith("figures: the judge's labels taken as the truth (no audit sample")


def test_compare_writes_json_to_a_file(runs: dict[str, Path], tmp_path: Path) -> None:
    written = tmp_path / "comparison.json"
    code, shown = invoke("compare", runs["baseline"], runs["worse"], "-f", "json", "-o", written)
    assert (code, shown) == (0, "")
    comparison = Comparison.model_validate_json(written.read_text())
    assert comparison.correction == "holm"
    assert comparison.runs.candidate == str(runs["worse"])
    assert json.loads(written.read_text())["rows"][0]["protocol"] == "issues"


def test_compare_writes_a_page(runs: dict[str, Path]) -> None:
    code, page = invoke(
        "compare", runs["baseline"], runs["worse"], "-f", "html", "--correction", "fdr_bh"
    )
    assert code == 0, page
    assert page.startswith("<!doctype html>")
    assert "Benjamini–Hochberg" in page
    assert "<td>worse</td>" in page


def test_compare_names_the_chatbots_it_cannot_pair(runs: dict[str, Path]) -> None:
    done = CliRunner().invoke(app, ["compare", str(runs["baseline"]), "-c", "python:faq_bot:reply"])
    assert isinstance(done.exception, DialbenchError)
    assert "it has python:faq_bot:reply" in str(done.exception)


def test_check_exits_by_its_verdict(runs: dict[str, Path]) -> None:
    code, shown = invoke("check", runs["equal"], "--baseline", runs["baseline"])
    assert code == PASS, shown
    assert shown.startswith("PASS: no regression (27 figures checked")
    code, shown = invoke("check", runs["worse"], "--baseline", runs["baseline"])
    assert code == REGRESSION, shown
    assert shown.startswith("REGRESSION: 4 figures worse beyond their margin")


def test_check_options_choose_the_rows_and_the_margin(runs: dict[str, Path]) -> None:
    code, shown = invoke("check", runs["worse"], "-b", runs["baseline"], "--language", "en")
    assert code == PASS, shown
    code, shown = invoke(
        "check", runs["worse"], "-b", runs["baseline"], "--dimension", "issues.*", "--json"
    )
    assert code == REGRESSION, shown
    verdict = json.loads(shown)
    assert {(r["dimension"], r["language"]) for r in verdict["regressions"]} == {
        ("issues.repetitive", "de"),
        ("issues.repetitive", "all"),
    }
    code, shown = invoke("check", runs["worse"], "-b", runs["baseline"], "--margin", "3")
    assert code == PASS, shown


def test_check_exits_2_when_nothing_compares(runs: dict[str, Path], tmp_path: Path) -> None:
    code, shown = invoke("check", runs["other-judge"], "--baseline", runs["baseline"])
    assert code == USAGE
    assert shown.startswith("error: no judge in both runs")
    code, shown = invoke("check", tmp_path / "missing", "--baseline", runs["baseline"])
    assert code == USAGE
    assert "no dialbench run store here" in shown
    code, shown = invoke("check", runs["worse"], "-b", runs["baseline"], "--language", "fr")
    assert code == USAGE
    assert "the gate checks none of the figures compared" in shown


def test_a_thresholds_file_sets_the_rules_and_is_checked(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    lenient = tmp_path / "gate.yaml"
    lenient.write_text("alpha: 0.01\nrules:\n  - dimensions: ['issues.*']\n    margin: 0.8\n")
    code, shown = invoke("check", runs["worse"], "-b", runs["baseline"], "--thresholds", lenient)
    assert code == PASS, shown
    assert "24 figures checked" in shown  # 8 issues x (en, de, all)
    wrong = tmp_path / "wrong.yaml"
    wrong.write_text("alpha: 0.01\nrules:\n  - dimensions: ['issues.*']\n    margins: 0.8\n")
    code, shown = invoke("check", runs["worse"], "-b", runs["baseline"], "--thresholds", wrong)
    assert code == USAGE
    assert shown.startswith(f"error: {wrong}:4")


def test_the_console_script_gates_a_regression(runs: dict[str, Path], cli: RunCli) -> None:
    done = cli("check", runs["worse"], "--baseline", runs["baseline"], ok=False)
    assert done.returncode == REGRESSION, done.stderr
    assert "de    issues.repetitive: 0.250 -> 1.000, +0.750" in done.stdout


def test_an_option_out_of_range_is_a_usage_error(runs: dict[str, Path]) -> None:
    code, shown = invoke("check", runs["worse"], "-b", runs["baseline"], "--alpha", "0")
    assert code == USAGE
    assert shown == "error: option alpha: Input should be greater than 0\n"


def test_names_are_shown_as_text_in_markdown_and_html(tmp_path: Path) -> None:
    named = "<script>alert(1)</script>|bot"
    before, after = make_run(tmp_path / "a", chatbot=named), make_run(tmp_path / "b", chatbot=named)
    for fmt in ("markdown", "html"):
        code, shown = invoke("compare", before, after, "-f", fmt)
        assert code == 0, shown
        assert "<script>" not in shown
        assert "&lt;script&gt;" in shown
