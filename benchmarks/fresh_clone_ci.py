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
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
PYTEST_START = re.compile(r"^=+ test session starts =+$")
PYTEST_END = re.compile(r"^=+ (?P<counts>.+) in (?P<seconds>[0-9.]+)s(?: \(.*\))? =+$")


def timed_run(commit: str) -> dict[str, str | float]:
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
    return {
        "commit": commit,
        "exit": code,
        "setup": (pytest_started - started) if pytest_started else float("nan"),
        "pytest": float(closing["seconds"]) if closing else float("nan"),
        "total": total,
        "counts": closing["counts"] if closing else "no closing line",
    }


def minutes(seconds: float | str) -> str:
    value = float(seconds)
    return "–" if value != value else f"{int(value // 60)} min {value % 60:04.1f} s"


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
        row = timed_run(commit)
        print(
            f"| {row['commit']} | {row['exit']} | {minutes(row['setup'])} | "
            f"{minutes(row['pytest'])} | {minutes(row['total'])} | {row['counts']} |",
            flush=True,
        )
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
