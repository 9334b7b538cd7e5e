"""The layer contracts (`[tool.importlinter]` in pyproject.toml, checked by `make lint`) hold,
and they are not decoration: an upward import or a figure drawn in judge/ breaks them, naming
the module and line."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(source: Path) -> subprocess.CompletedProcess[str]:
    """import-linter over the `dialbench` package found first on PYTHONPATH."""
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", str(ROOT / "pyproject.toml")],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(source), "PATH": str(LINT_IMPORTS.parent)},
        cwd=ROOT,
        timeout=300,
        check=False,
    )


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    shutil.copytree(
        ROOT / "src" / "dialbench",
        tmp_path / "dialbench",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    return tmp_path


def test_the_contracts_hold() -> None:
    done = lint_imports(ROOT / "src")
    assert done.returncode == 0, done.stdout
    assert "0 broken" in done.stdout


@pytest.mark.parametrize(
    ("module", "line", "named"),
    [
        # judge/ asks, report/ shows: a protocol that reached for the report's tables
        (
            "judge/protocol.py",
            "from dialbench.report import tables",
            "dialbench.judge.protocol -> dialbench.report.tables (l.",
        ),
        # the store importing what is built on it
        (
            "store/records.py",
            "import dialbench.ratings",
            "dialbench.store.records -> dialbench.ratings (l.",
        ),
        # a figure drawn where models are called
        ("llm/runner.py", "import matplotlib.pyplot", "dialbench.llm.runner -> matplotlib (l."),
        # a circle between two siblings
        ("llm/cache.py", "from dialbench.llm import runner", "- .cache -> .runner (1 import)"),
    ],
)
def test_an_import_against_the_layers_breaks_a_contract_naming_it(
    copy: Path, module: str, line: str, named: str
) -> None:
    path = copy / "dialbench" / module
    path.write_text(path.read_text(encoding="utf-8") + f"\n{line}  # noqa\n", encoding="utf-8")
    done = lint_imports(copy)
    assert done.returncode != 0, done.stdout
    assert named in done.stdout, done.stdout


def test_the_architecture_page_lists_the_layers_of_the_contract() -> None:
    """docs/architecture.md's table is the contract explained: the same layers, top to bottom,
    each with the same modules, so a module added to one is added to the other."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (layers,) = (
        contract["layers"]
        for contract in contracts["tool"]["importlinter"]["contracts"]
        if contract["id"] == "layers"
    )
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = re.search(r"\| layer \| what it holds \|\n\| --- \| --- \|\n((?:\|.*\n)+)", page)
    assert table is not None, "the layer table is missing from docs/architecture.md"
    documented = [re.findall(r"`([^`]+)`", row.split(" | ")[0]) for row in table[1].splitlines()]
    assert documented == [[name.strip() for name in layer.split("|")] for layer in layers]
