"""`.ci/run` from a fresh clone, process start to exit: what CI and a new contributor wait for.

    python benchmarks/fresh_clone_ci.py [COMMIT ...]   (default: HEAD)

Each commit is cloned into a scratch folder laid out as CI lays it (the clone beside a `shared`
that points at this checkout's `../shared`), and `.ci/run` runs there with CI=true and no input,
as CI starts it. Printed per commit: the set-up and lint (everything before pytest's first
line), pytest's own time (its closing line), the whole run, and the counts pytest closed on.
pip's cache is the machine's, as on a developer's machine: a first build of llama.cpp adds about
five minutes. Run it on a quiet machine; several commits run one after the other, so their
figures come from the same machine and the same hour.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
PYTEST_START = re.compile(r"^=+ test session starts =+$")
PYTEST_END = re.compile(r"^=+ (?P<counts>.+) in (?P<seconds>[0-9.]+)s(?: \(.*\))? =+$")


@dataclass(frozen=True)
class CiRun:
    """One commit's `.ci/run`: its exit code, seconds per phase (NaN where pytest printed no
    start or closing line), and the counts pytest closed on."""

    commit: str
    exit: int
    setup: float
    pytest: float
    total: float
    counts: str


def timed_run(commit: str) -> CiRun:
    with tempfile.TemporaryDirectory(prefix="dialbench-ci-") as scratch:
        clone = Path(scratch) / "dialbench"
        subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
        subprocess.run(["git", "-C", str(clone), "checkout", "--quiet", commit], check=True)
        (Path(scratch) / "shared").symlink_to(SHARED, target_is_directory=True)
        log = Path(scratch) / "ci.log"
        env = {**os.environ, "CI": "true"}
        started = time.perf_counter()
        pytest_started: float | None = None
        closing: re.Match[str] | None = None
        with log.open("w", encoding="utf-8") as out:
            process = subprocess.Popen(
                ["bash", ".ci/run"],
                cwd=clone,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            assert process.stdout is not None
            for line in process.stdout:
                out.write(line)
                if pytest_started is None and PYTEST_START.match(line.strip()):
                    pytest_started = time.perf_counter()
                closing = PYTEST_END.match(line.strip()) or closing
            code = process.wait()
        total = time.perf_counter() - started
        if code != 0:
            kept = Path(tempfile.gettempdir()) / f"dialbench-ci-{commit[:12]}.log"
            kept.write_text(log.read_text(encoding="utf-8"), encoding="utf-8")
            print(f"{commit}: .ci/run exited {code}; its output is in {kept}", file=sys.stderr)
    return CiRun(
        commit=commit,
        exit=code,
        setup=(pytest_started - started) if pytest_started else math.nan,
        pytest=float(closing["seconds"]) if closing else math.nan,
        total=total,
        counts=closing["counts"] if closing else "no closing line",
    )


def minutes(seconds: float) -> str:
    return "–" if math.isnan(seconds) else f"{int(seconds // 60)} min {seconds % 60:04.1f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("commits", nargs="*", default=["HEAD"])
    commits = [
        subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", commit],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        for commit in parser.parse_args().commits
    ]
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print("| commit | exit | set-up and lint | pytest | whole .ci/run | pytest closed on |")
    print("| --- | --- | --- | --- | --- | --- |")
    for commit in commits:
        run = timed_run(commit)
        print(
            f"| {run.commit} | {run.exit} | {minutes(run.setup)} | {minutes(run.pytest)} | "
            f"{minutes(run.total)} | {run.counts} |",
            flush=True,
        )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
