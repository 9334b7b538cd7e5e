"""Annotation writes through the web app: N simulated annotators (default 40) saving labels
against `dialbench serve` on 127.0.0.1 for S seconds (default 120) while the organiser's page
reloads every second (the page itself reloads every 30 s; `--organiser-every 0` reloads it as
soon as it has come, a stress far beyond one open tab), then a check that every acknowledged
write is in the store.
Prints writes per second, write latency percentiles and the organiser page's load times, and
the machine's load average before and after (the load generator shares the server's cores:
other jobs on them lower every figure). The CPU time the server's processes spent per write
(the organiser's pages and agreement included; Linux only) moves much less with other jobs:
it compares two versions on a busy machine.

Usage (after `make test`, whose venv has the clients' httpx):
.venv/bin/python benchmarks/web_annotation.py [ANNOTATORS] [SECONDS] [--organiser-every S]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "web"))

try:
    from annotator_load import drive, lost_writes, make_load_run
    from serve_process import serve
except ModuleNotFoundError as missing:  # the clients need httpx, from the dev extra
    sys.exit(f"no module {missing.name}: run `make test` first, which sets up what this needs")


def _percentiles(seconds: list[float]) -> str:
    ordered = sorted(1000 * s for s in seconds)
    if not ordered:
        return "none"

    def at(share: float) -> float:
        return ordered[min(len(ordered) - 1, int(share * len(ordered)))]

    return f"median {at(0.5):.1f}, p95 {at(0.95):.1f}, p99 {at(0.99):.1f}, max {ordered[-1]:.1f}"


def _cpu_seconds(pid: int) -> float:
    """User and system time of a process and of its children that are still running (the
    agreement's process), from /proc."""
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        if stat.parent.name == str(pid) or fields[1] == str(pid):
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("annotators", type=int, nargs="?", default=40)
    parser.add_argument("seconds", type=float, nargs="?", default=120.0)
    parser.add_argument("--organiser-every", type=float, default=1.0, metavar="SECONDS")
    arguments = parser.parse_args()
    annotators, seconds = arguments.annotators, arguments.seconds
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as scratch:
        load = make_load_run(Path(scratch) / "run", annotators, dialogues=60)
        with serve(load.path) as serving:
            cpu_before = _cpu_seconds(serving.process.pid)
            result = drive(
                serving.base, load, seconds, serving.organiser_link, arguments.organiser_every
            )
            cpu = _cpu_seconds(serving.process.pid) - cpu_before
        lost = lost_writes(load, result)
    print(f"{annotators} annotators for {seconds:.0f} s: {result.writes} acknowledged writes")
    print(f"writes/s: {result.writes / seconds:.1f}")
    print(f"write latency ms: {_percentiles(result.latencies)}")
    first, *later = result.organiser_latencies or [0.0]
    every = arguments.organiser_every
    print(
        f"organiser page: first view {1000 * first:.1f} ms (before the annotators came: it may "
        f"wait for the first agreement table), then reloaded {len(later)} times (every {every:g} "
        f"s at most), ms: {_percentiles(later)}"
    )
    print(f"failed requests: {len(result.failures)}; lost acknowledged writes: {len(lost)}")
    print(
        f"server CPU: {1000 * cpu / max(result.writes, 1):.2f} ms per write, "
        f"{cpu / seconds:.2f} cores meanwhile"
    )
    print(f"load average (1 min): {load_before:.2f} before, {os.getloadavg()[0]:.2f} after")
    if lost or result.failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
