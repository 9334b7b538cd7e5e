"""Bad input to `dialbench judge` and `dialbench report`: one clear line, exit 1, no traceback."""

from __future__ import annotations

import subprocess
from pathlib import Path

from dialbench.store import RunStore
from tests.conftest import RunCli


def assert_clear_error(done: subprocess.CompletedProcess[str], message: str) -> None:
    assert done.returncode == 1
    stderr = done.stderr
    assert message in stderr
    assert "Traceback" not in stderr
    assert stderr.startswith("error: ")


def test_judge_over_an_empty_run(cli: RunCli, tmp_path: Path) -> None:
    RunStore.open(tmp_path / "empty").close()
    done = cli("judge", tmp_path / "empty", "--protocol", "issues", ok=False)
    assert_clear_error(done, "holds no dialogues to judge; import some first")


def test_judge_a_run_that_does_not_exist(cli: RunCli, tmp_path: Path) -> None:
    done = cli("judge", tmp_path / "nowhere", ok=False)
    assert_clear_error(done, "no dialbench run store here")


def test_judge_with_an_unknown_protocol(cli: RunCli, example_jsonl: Path, tmp_path: Path) -> None:
    cli("import", example_jsonl, "--run", tmp_path / "run")
    done = cli("judge", tmp_path / "run", "--protocol", "tournament", ok=False)
    assert_clear_error(
        done,
        "unknown protocol 'tournament' (known: issues, holistic, submetrics, unieval, arena, "
        "gteval, replay)",
    )


def test_judge_a_language_the_run_does_not_have(
    cli: RunCli, example_jsonl: Path, tmp_path: Path
) -> None:
    cli("import", example_jsonl, "--run", tmp_path / "run")
    done = cli("judge", tmp_path / "run", "--language", "sw", ok=False)
    assert_clear_error(done, "no dialogues in sw to judge")
    done = cli("judge", tmp_path / "run", "--language", "not a tag", ok=False)
    assert_clear_error(done, "'not a tag' is not a valid BCP-47 language tag")


def test_report_on_an_empty_run(cli: RunCli, tmp_path: Path) -> None:
    RunStore.open(tmp_path / "empty").close()
    done = cli("report", tmp_path / "empty", ok=False)
    assert_clear_error(done, "holds no dialogues and no judgments: nothing to report")
