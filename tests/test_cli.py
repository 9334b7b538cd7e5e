from __future__ import annotations

import importlib
import inspect
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main

import dialbench
from dialbench.cli import app
from dialbench.cli.command_table import COMMANDS as COMMAND_TABLE
from dialbench.cli.options import FormatsCommand, _FormatsHelp
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


# What loads a feature's machinery or a heavy library: none of it is needed to list the commands
# or to say in one line what is wrong with a command line (benchmarks/cli_start.py times both).
HEAVY = ("numpy", "pandas", "scipy", "sklearn", "matplotlib", "jsonschema", "langcodes", "yaml")
FEATURES = ("judge", "simulate", "botchat", "curate", "metaeval", "calibrate", "metrics", "figures")
FEATURES += ("report", "pipeline", "web", "analysis", "seeds")
TEXT_LIBRARIES = ("jieba", "lexical_diversity", "pkg_resources")  # read every installed package


def loaded_by(folder: Path, *args: str) -> set[str]:
    """The modules a `dialbench ARGS` process, run in `folder`, has imported when it exits."""
    script = (
        "import atexit, sys; from dialbench.cli import main; "
        "atexit.register(lambda: print(*sorted(sys.modules), file=sys.stderr)); "
        f"sys.argv = ['dialbench', *{list(args)!r}]; main()"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=folder, capture_output=True, text=True, check=False
    )
    return set(done.stderr.split())


@pytest.mark.parametrize(
    "args",
    [["--help"], ["--help", "--nope"], ["imprt", "x.jsonl"]],
    ids=["top-level help", "an unknown option", "an unknown command"],
)
def test_the_commands_are_listed_and_refused_without_any_feature(
    tmp_path: Path, args: list[str]
) -> None:
    """The top-level help and a mistaken command line import no command module (the command
    table lists them) and so none of the features and libraries those load."""
    loaded = loaded_by(tmp_path, *args)
    assert "dialbench.cli.app" in loaded, "the script ran"
    assert not {m for m in loaded if m.split(".")[0] in HEAVY + TEXT_LIBRARIES}
    dialbench = {m.split(".")[1] for m in loaded if m.startswith("dialbench.")}
    assert dialbench <= {"cli", "errors", "lazy_exports"}, dialbench
    assert {m for m in loaded if m.startswith("dialbench.cli.")} <= {
        "dialbench.cli.app",
        "dialbench.cli.command_table",
    }


def test_a_one_line_error_loads_only_its_own_command(tmp_path: Path) -> None:
    """`dialbench import missing.jsonl` finds the file missing before the readers load: no
    importer, no format's module (the --format help lists them only when shown), no numpy, no
    langcodes (it loads when a first language tag is read), no feature, and no text library
    (they load when text is first cut)."""
    loaded = loaded_by(tmp_path, "import", "missing.jsonl", "--run", "r")
    assert "dialbench.cli.records" in loaded
    assert not {m for m in loaded if m.split(".")[0] in (*TEXT_LIBRARIES, "pandas", "scipy")}
    assert not {"numpy", "langcodes"} & loaded
    io_modules = {m for m in loaded if m.startswith("dialbench.io.")}
    assert io_modules <= {"dialbench.io.file_format", "dialbench.io.registry"}, io_modules
    assert not {m for m in loaded if m.split(".")[:2] in [["dialbench", f] for f in FEATURES]}
    assert "dialbench.llm.runner" not in loaded, "the progress display, not the model layer"


def test_the_command_table_lists_each_command_as_its_module_defines_it() -> None:
    """cli/command_table.py, which the top-level help is printed from, names every command in
    the module that defines it, with the first paragraph of its help."""
    defined = {}
    for listed in COMMAND_TABLE.values():
        module = importlib.import_module(f"dialbench.cli.{listed.module}")
        group = typer.main.get_command(app)
        assert listed.name in group.commands, f"{module.__name__} defines no {listed.name!r}"  # type: ignore[attr-defined]
        defined[listed.name] = group.commands[listed.name]  # type: ignore[attr-defined]
    assert set(typer.main.get_command(app).commands) == set(COMMAND_TABLE)  # type: ignore[attr-defined]
    for name, command in defined.items():
        summary = inspect.cleandoc(command.help or "").split("\n\n")[0]
        assert inspect.cleandoc(COMMAND_TABLE[name].summary) == summary, name


def test_every_command_with_a_format_option_lists_the_formats_in_its_help() -> None:
    """A `--format` option's help is written when help is shown, by its command's class
    (`FormatsCommand`): a command with the option and another class would show it empty."""
    for listed in COMMAND_TABLE.values():
        importlib.import_module(f"dialbench.cli.{listed.module}")
    pending = [typer.main.get_command(app)]
    with_formats = []
    while pending:
        command = pending.pop()
        pending += getattr(command, "commands", {}).values()
        if any(isinstance(param.help, _FormatsHelp) for param in command.params):  # type: ignore[attr-defined]
            with_formats.append(command.name)
            assert isinstance(command, FormatsCommand), command.name
    assert {"import", "validate", "export"} <= set(with_formats)


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
        summary = dialbench.count_contents(store)
    assert report.added == summary.dialogues == 13
    assert summary.by_language["zh"] == 2
