"""How long a `dialbench` command takes to start, process start to exit: `dialbench --help`, and
a typical mistake answered in one line (`dialbench import missing.jsonl`), each the median of
`--repeats` runs taken in turn. Every command pays this, and so does each of the test suite's
hundreds of console-script calls. With `--baseline SRC` (the `src` folder of another version,
e.g. a `git worktree` of it) the same commands of that version alternate with this tree's, and
each line ends with the ratio.

Usage: .venv/bin/python benchmarks/cli_start.py [--repeats 15] [--baseline SRC]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _versions import compared_versions, environment, shown

DIALBENCH = Path(sys.executable).with_name("dialbench")
COMMANDS = {
    "dialbench --help": ["--help"],
    "dialbench import missing.jsonl (one-line error)": ["import", "missing.jsonl", "--run", "r"],
}


def seconds(arguments: list[str], source: Path, folder: str) -> float:
    start = time.perf_counter()
    subprocess.run(
        [str(DIALBENCH), *arguments],
        cwd=folder,
        env=environment(source),
        capture_output=True,
        check=False,
    )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--baseline", type=Path, help="the src folder of another version")
    arguments = parser.parse_args()
    versions = compared_versions(arguments.baseline)
    with tempfile.TemporaryDirectory() as folder:
        for source in versions.values():  # each version's bytecode written before timing
            seconds(["--help"], source, folder)
        for what, command in COMMANDS.items():
            times: dict[str, list[float]] = {name: [] for name in versions}
            for _ in range(arguments.repeats):
                for name, source in versions.items():
                    times[name].append(seconds(command, source, folder))
            shown(
                f"{what} (median of {arguments.repeats})",
                {name: statistics.median(values) for name, values in times.items()},
            )


if __name__ == "__main__":
    main()
