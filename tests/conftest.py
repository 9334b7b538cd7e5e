"""Shared fixtures: the real `dialbench` entry point, and the data shipped in ../shared."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from dialbench import examples
from dialbench.registry import Registry

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
DIALBENCH = Path(sys.executable).with_name("dialbench")

RunCli = Callable[..., subprocess.CompletedProcess[str]]
Register = Callable[[Registry[Any], str, object], None]
# How the bundled speaker_turns.csv (and the CSVs the tests write) map onto dialbench's fields.
CSV_MAPPING = (
    *("--column", "dialogue_id=conv", "--column", "role=speaker", "--column", "text=utterance"),
    *("--role", "A=user", "--role", "B=assistant"),
)


def pytest_configure(config: pytest.Config) -> None:
    """Ctrl-C reaches the commands the tests start as it does at a user's terminal. A shell that
    starts a job in the background (`make test &` in a script, some CI runners) has it ignore
    SIGINT, every process it starts inherits that, and the tests of stopping a run with Ctrl-C
    (and Ray's cancelling of a task, which sends one) would then see it ignored."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    worker = getattr(config, "workerinput", {}).get("workerid")
    if worker is not None:
        pin_to_one_core(int(worker.removeprefix("gw")))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest files first. `make test` hands whole files to its workers in this order
    (`--dist loadscope`), so the files that run a real model or server (marked slow) start at
    once, the docs pages next, and the many short files even out the end: started last, the
    quickstart alone would keep one core busy for minutes while the other idles. The order
    within a file is kept, so its fixtures are made once."""
    rank: dict[Path, int] = {}
    for item in items:
        own = 0 if item.get_closest_marker("slow") else 1 if item.path.suffix == ".md" else 2
        rank[item.path] = min(own, rank.get(item.path, own))
    items.sort(key=lambda item: rank[item.path])


def pin_to_one_core(worker: int) -> None:
    """Each pytest-xdist worker (`make test` runs one per core) gets a core of its own, and so
    does everything it starts: llama.cpp, which takes as many threads as the process may use
    cores, then runs one thread per worker instead of two busy-waiting teams fighting over the
    same two cores. Every thread of the worker is moved, execnet's included."""
    cores = sorted(os.sched_getaffinity(0))
    core = {cores[worker % len(cores)]}
    for thread in os.listdir("/proc/self/task"):
        with contextlib.suppress(ProcessLookupError):  # a thread that ended meanwhile
            os.sched_setaffinity(int(thread), core)


@pytest.fixture
def cli(tmp_path: Path) -> RunCli:
    """Run the installed console script, as a user would, from a scratch working directory."""

    def run(*args: str | Path, ok: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [str(DIALBENCH), *map(str, args)],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        if ok and done.returncode != 0:
            raise AssertionError(f"exit {done.returncode}\n{done.stdout}\n{done.stderr}")
        return done

    return run


def piped(*args: str | Path, columns: str | None) -> list[str]:
    """The console script's stdout through a pipe, as a CI log gets it, with COLUMNS set or
    not; the environment is given whole because readline, which pytest loads, exports
    COLUMNS to child processes behind os.environ's back."""
    env = {key: value for key, value in os.environ.items() if key != "COLUMNS"}
    done = subprocess.run(
        [str(DIALBENCH), *map(str, args)],
        env=env | ({"COLUMNS": columns} if columns else {}),
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return done.stdout.splitlines()


@pytest.fixture(scope="session")
def mutual_xlsx() -> Path:
    path = SHARED_DATA / "mutual_test_chatseeds.xlsx"
    if not path.exists():
        pytest.fail(f"{path} is missing: the tests need ../shared/data beside the checkout")
    return path


@pytest.fixture(scope="session")
def example_jsonl() -> Path:
    return examples.bundled()["multilingual_dialogues"]


@pytest.fixture
def register() -> Iterator[Register]:
    """Add an entry to a registry for one test, as a plugin would: gone again afterwards."""
    added: list[tuple[Registry[Any], str]] = []

    def add(registry: Registry[Any], name: str, entry: object) -> None:
        registry.register(name, entry)
        added.append((registry, name))

    yield add
    for registry, name in added:
        registry.unregister(name)
