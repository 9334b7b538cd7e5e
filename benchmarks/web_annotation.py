"""Annotation writes through the web app: N simulated annotators (default 20) saving labels
against `dialbench serve` on 127.0.0.1 for S seconds (default 120), then a check that every
acknowledged write is in the store. Prints writes per second and latency percentiles.

Usage: .venv/bin/python benchmarks/web_annotation.py [ANNOTATORS] [SECONDS]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "web"))

from annotator_load import drive, lost_writes, make_load_run
from serve_process import serve


def main() -> None:
    annotators = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 120.0
    with tempfile.TemporaryDirectory() as scratch:
        load = make_load_run(Path(scratch) / "run", annotators, dialogues=60)
        with serve(load.path) as serving:
            result = drive(serving.base, load, seconds)
        lost = lost_writes(load, result)
    latencies = sorted(1000 * s for s in result.latencies)
    print(f"{annotators} annotators for {seconds:.0f} s: {result.writes} acknowledged writes")
    print(f"writes/s: {result.writes / seconds:.1f}")
    print(
        f"latency ms: median {statistics.median(latencies):.1f}, "
        f"p95 {latencies[int(0.95 * len(latencies))]:.1f}, p99 {result.p99_ms():.1f}"
    )
    print(f"failed requests: {len(result.failures)}; lost acknowledged writes: {len(lost)}")
    if lost or result.failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
