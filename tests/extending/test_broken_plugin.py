"""An installed plugin whose module raises as it is imported breaks no command but those that use
it by name: listings skip it, naming it in one line, `dialbench models` lists it as broken, and
using it is one line of error, never a traceback."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import DIALBENCH

GROUPS = {"protocols": "protocol", "formats": "file format", "stages": "stage kind"}
BROKEN = "(plugin dialbench-broken 1.0) cannot be loaded (RuntimeError: not configured)"
PATH = "'broken_plugin:Thing'"


@pytest.fixture
def broken_plugin(tmp_path: Path) -> dict[str, str]:
    """The environment of a command with `dialbench-broken 1.0` installed: an entry in the
    protocols, formats and stages groups, each `broken_<group>`, in a module that raises a
    RuntimeError as it is imported."""
    site = tmp_path / "site"
    info = site / "dialbench_broken-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: dialbench-broken\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "".join(f"[dialbench.{group}]\nbroken_{group} = broken_plugin:Thing\n" for group in GROUPS)
    )
    (site / "broken_plugin.py").write_text("raise RuntimeError('not configured')\n")
    paths = [str(site), str(Path.cwd()), os.environ.get("PYTHONPATH", "")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, paths)), "COLUMNS": "200"}


def dialbench(env: dict[str, str], *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(DIALBENCH), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
        check=False,
    )


def skipped(group: str) -> str:
    return f"dialbench: {GROUPS[group]} 'broken_{group}' {PATH} {BROKEN}: skipped"


def test_every_command_works_and_names_the_broken_entries_it_skips(
    broken_plugin: dict[str, str], tmp_path: Path, example_jsonl: Path
) -> None:
    # The top-level help loads no command and so no plugin; a command's help loads its own.
    helps = [
        (["--help"], []),
        (["judge", "--help"], [skipped("protocols")]),
        (["import", "--help"], [skipped("formats")]),
    ]
    for command, names in helps:
        done = dialbench(broken_plugin, *command, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert "Usage" in done.stdout
        assert done.stderr.splitlines() == names
    (tmp_path / "pipeline.yaml").write_text(
        f"run: run\nstages:\n  - stage: import\n    file: {example_jsonl}\n"
    )
    ran = dialbench(broken_plugin, "run", "pipeline.yaml", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert skipped("stages") in ran.stderr.splitlines()
    assert "Traceback" not in ran.stderr
    listed = dialbench(broken_plugin, "models", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    for group in GROUPS:
        [row] = [line for line in listed.stdout.splitlines() if f" broken_{group} " in line]
        assert "plugin dialbench-broken 1.0" in row
        assert "broken: cannot be loaded (RuntimeError: not configured)" in row


@pytest.mark.parametrize(
    ("command", "says"),
    [
        (
            ["judge", "run", "--protocol", "broken_protocols"],
            f"error: protocol 'broken_protocols' {PATH} {BROKEN}",
        ),
        (
            ["import", "{example}", "--format", "broken_formats"],
            f"error: file format 'broken_formats' {PATH} {BROKEN}",
        ),
        (["run", "pipeline.yaml"], f"stage kind 'broken_stages' {PATH} {BROKEN}"),
    ],
    ids=["protocol", "format", "stage"],
)
def test_using_the_broken_entry_is_one_line_of_error(
    broken_plugin: dict[str, str],
    tmp_path: Path,
    example_jsonl: Path,
    command: list[str],
    says: str,
) -> None:
    (tmp_path / "pipeline.yaml").write_text(
        f"run: run\nstages:\n  - stage: broken_stages\n    file: {example_jsonl}\n"
    )
    args = [arg.format(example=example_jsonl) for arg in command]
    done = dialbench(broken_plugin, *args, cwd=tmp_path)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert says in done.stderr, done.stderr
