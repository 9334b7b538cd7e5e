from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import typer.main

import dialbench
from dialbench.cli import app
from dialbench.machine import processor
from tests.conftest import RunCli

COMMANDS = sorted(typer.main.get_command(app).commands)  # type: ignore[attr-defined]


def test_the_expected_commands_exist() -> None:
    assert {"import", "validate", "export", "show", "examples"} <= set(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(cli: RunCli, command: str) -> None:
    done = cli(command, "--help")
    assert "Usage: dialbench " + command in " ".join(done.stdout.split())


def test_python_dash_m_runs_the_same_cli() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "dialbench", "--help"], capture_output=True, text=True, check=True
    )
    assert "import" in done.stdout


def test_a_command_starts_without_the_text_libraries() -> None:
    """jieba and lexical_diversity import pkg_resources, which reads every installed package:
    a fifth of a second each command would pay at start (benchmarks/cli_start.py). They load
    when text is first cut."""
    loaded = "import sys, dialbench.cli; print(*sorted({m.split('.')[0] for m in sys.modules}))"
    done = subprocess.run(
        [sys.executable, "-c", loaded], capture_output=True, text=True, check=True
    )
    assert not {"jieba", "lexical_diversity", "pkg_resources"} & set(done.stdout.split())


def test_show_prints_counts_by_language_and_source(
    cli: RunCli, tmp_path: Path, example_jsonl: Path
) -> None:
    cli("import", example_jsonl, "--run", tmp_path / "run")
    shown = cli("show", tmp_path / "run").stdout
    assert "dialogues: 13, turns: 53" in shown
    assert "dialogues by language" in shown
    assert "zh" in shown
    assert "example" in shown
    assert "judgments: none" in shown
    assert f"computed on: {processor()}" in shown  # local models' output depends on it


def test_run_directory_from_the_environment(
    tmp_path: Path, example_jsonl: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIALBENCH_RUN", str(tmp_path / "env-run"))
    dialbench_cli = Path(sys.executable).with_name("dialbench")
    subprocess.run([dialbench_cli, "import", example_jsonl], check=True, capture_output=True)
    assert (tmp_path / "env-run" / "dialbench.sqlite").exists()


def test_the_python_api_does_what_the_cli_does(tmp_path: Path, example_jsonl: Path) -> None:
    with dialbench.RunStore.open(tmp_path) as store:
        report = dialbench.import_file(store, example_jsonl)
        summary = dialbench.summarize(store)
    assert report.added == summary.dialogues == 13
    assert summary.by_language["zh"] == 2
