"""Cache: re-run a finished job of N calls from the run store, making zero model calls.

Fills the cache with N chat calls against the loopback server, then re-runs the same job with a
fresh runner on the same run directory and reports calls per second and wall time.
Usage: .venv/bin/python benchmarks/cache_rerun.py [N]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from _loopback import start_loopback

from dialbench.llm.base import Completion
from dialbench.llm.runner import CallFailed, Runner
from dialbench.llm.specs import ModelConfig


def run_job(run_dir: Path, spec: str, n: int) -> tuple[float, list[Completion | CallFailed]]:
    with Runner(run_dir, quiet=True) as runner:
        model = runner.model(ModelConfig(spec=spec, max_concurrency=64))

        async def job() -> list[Completion | CallFailed]:
            calls = [model.chat([{"role": "user", "content": f"item {i}"}]) for i in range(n)]
            return await runner.gather(calls)

        started = time.perf_counter()
        results = runner.run_sync(job())
        return time.perf_counter() - started, results


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    server = start_loopback()
    try:
        with tempfile.TemporaryDirectory() as run_dir:
            fill_s, first = run_job(Path(run_dir), server.spec(), n)
            calls_before = server.requests()
            rerun_s, second = run_job(Path(run_dir), server.spec(), n)
            calls_during_rerun = server.requests() - calls_before
    finally:
        server.stop()
    assert all(isinstance(r, Completion) and r.cached for r in second)
    assert [getattr(r, "text", None) for r in first] == [getattr(r, "text", None) for r in second]
    print(f"first run:  {n} calls in {fill_s:.2f} s ({n / fill_s:,.0f} calls/s)")
    print(f"re-run:     {n} cached calls in {rerun_s:.2f} s ({n / rerun_s:,.0f} calls/s)")
    print(f"model calls during the re-run: {calls_during_rerun}")


if __name__ == "__main__":
    main()
