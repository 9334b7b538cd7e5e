"""Every code example of the docs site and the README runs as a test (Sybil).

- ```python blocks run in this process, one namespace per page, in order;
- ```bash blocks run in `bash -e -o pipefail`, so every command must succeed, with the
  environment's `dialbench` first on PATH;
- every other fence (text, console, yaml, toml) is shown, not run;
- `<!-- skip: next "reason" -->` skips the next block, with its reason shown in the source;
- `<!-- fails: next "words" -->`: the next bash block needs what a test machine lacks (an API
  key, a remote server), so it must stop at once, before any work: exit non-zero with one
  `error:` line holding the words, and no traceback.

Each page runs in a scratch folder of its own that mirrors a checkout beside `shared/`:

    SCRATCH/shared -> the shared folder beside this checkout (../shared/data/...)
    SCRATCH/dialbench/              <- the working directory (runs/, models/ land here)
    SCRATCH/dialbench/examples/     <- a copy of examples/ (pipelines resolve paths from it)

so the commands read as they would in a fresh clone, and leave nothing behind.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sybil import Document, Example, Region, Sybil
from sybil.parsers.markdown import CodeBlockParser, PythonCodeBlockParser, SkipParser
from sybil.parsers.markdown.lexers import DirectiveInHTMLCommentLexer

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
BIN = Path(sys.executable).parent
PAGES = ("docs/**/*.md", "README.md")
BASH_TIMEOUT_S = 600
FAIL_FAST_S = 30
# Never spend a developer's own keys on the docs' examples.
WITHHELD = ("DIALBENCH_RUN", "OPENAI_API_KEY")


def scratch(namespace: dict[str, Any]) -> None:
    """Before a page: a fresh checkout-shaped folder, and the process inside it."""
    folder = Path(tempfile.mkdtemp(prefix="dialbench-docs-"))
    (folder / "shared").symlink_to(SHARED, target_is_directory=True)
    work = folder / "dialbench"
    shutil.copytree(ROOT / "examples", work / "examples")
    namespace["_scratch"] = folder
    namespace["_workdir"] = work
    namespace["_previous_cwd"] = Path.cwd()
    os.chdir(work)


def clean(namespace: dict[str, Any]) -> None:
    os.chdir(namespace["_previous_cwd"])
    shutil.rmtree(namespace["_scratch"], ignore_errors=True)


class FailsParser:
    """`<!-- fails: next "words" -->` before a bash block: it must fail fast, in one line."""

    def __init__(self) -> None:
        self.lexer = DirectiveInHTMLCommentLexer("fails", arguments=r'next ".+?"')

    def __call__(self, document: Document) -> Iterator[Region]:
        for lexed in self.lexer(document):
            words = ast.literal_eval(lexed.lexemes["arguments"].removeprefix("next "))
            yield Region(lexed.start, lexed.end, words, self.expect)

    @staticmethod
    def expect(example: Example) -> None:
        example.namespace["_fails_with"] = example.parsed


def run_bash(example: Example) -> None:
    env = {key: value for key, value in os.environ.items() if key not in WITHHELD}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["COLUMNS"] = "120"  # rich tables wrap as in a terminal, not at 80 columns
    fails_with = example.namespace.pop("_fails_with", None)
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", example.parsed],
        cwd=example.namespace["_workdir"],
        env=env,
        capture_output=True,
        text=True,
        timeout=BASH_TIMEOUT_S if fails_with is None else FAIL_FAST_S,
        check=False,
    )
    if fails_with is not None:
        errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
        assert done.returncode != 0, f"{example.path}:{example.line}: ran, but should stop"
        assert "Traceback" not in done.stderr, f"{example.path}:{example.line}: {done.stderr}"
        assert len(errors) == 1, f"{example.path}:{example.line}: {done.stderr[-2000:]}"
        assert fails_with in errors[0], (
            f"{example.path}:{example.line}: expected one error line with {fails_with!r}, got "
            f"{done.stderr[-2000:]}"
        )
        return
    if done.returncode != 0:
        raise AssertionError(
            f"{example.path}:{example.line}: bash block exited {done.returncode}\n"
            f"--- stdout\n{done.stdout[-4000:]}\n--- stderr\n{done.stderr[-4000:]}"
        )


SYBIL = Sybil(
    parsers=[
        PythonCodeBlockParser(),
        CodeBlockParser("bash", run_bash),
        SkipParser(),
        FailsParser(),
    ],
    path=str(ROOT),
    patterns=["*.md"],  # which pages: `pages()` below
    setup=scratch,
    teardown=clean,
)
_collect_page = SYBIL.pytest()


def pages() -> Iterator[Path]:
    for pattern in PAGES:
        yield from sorted(ROOT.glob(pattern))


class DocPages(pytest.File):
    """The pages live outside tests/: this file's collector stands in for them, so
    `pytest tests/docs` (and so `make test`) runs every page's examples."""

    def collect(self) -> Iterator[Any]:
        for page in pages():
            collector = _collect_page(page, self)
            if collector is not None:
                yield collector


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path == Path(__file__):
        return DocPages.from_parent(parent, path=file_path)
    return None
