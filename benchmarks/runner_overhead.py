"""Runner overhead: throughput against a loopback server with fixed latency, vs. the ideal C/L.

The server (a separate process) answers every request after L seconds; with C calls in flight
the ideal throughput is C/L. The runner runs with its cache on, as in a real job. In the same
run, a bare aiohttp loop (no runner, no cache, no parsing) shows what this machine and server
allow at all. Each concurrency runs max(min-requests, 50 x C) requests.
Usage: .venv/bin/python benchmarks/runner_overhead.py [--latency 0.2] [--min-requests 200]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time

import aiohttp
from _loopback import start_loopback

from dialbench.llm.base import GenerationParams
from dialbench.llm.runner import Runner
from dialbench.llm.specs import ModelConfig

PARAMS = GenerationParams(max_tokens=16)


def measure(spec: str, concurrency: int, requests: int) -> float:
    """Completed requests per second."""
    with tempfile.TemporaryDirectory() as run_dir, Runner(run_dir, quiet=True) as runner:
        model = runner.model(ModelConfig(spec=spec, max_concurrency=concurrency))

        async def job() -> float:
            prompts = [f"C={concurrency} request {i}" for i in range(requests)]
            started = time.perf_counter()
            results = await runner.gather(
                [model.chat([{"role": "user", "content": p}], PARAMS) for p in prompts]
            )
            elapsed = time.perf_counter() - started
            assert all(not isinstance(r, Exception) for r in results)
            return requests / elapsed

        return runner.run_sync(job())


def measure_bare(base_url: str, concurrency: int, requests: int) -> float:
    """Completed requests per second from a bare aiohttp loop: the ceiling here."""

    async def job() -> float:
        slots = asyncio.Semaphore(concurrency)
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:

            async def one(i: int) -> None:
                body = {"model": "loopback", "messages": [{"role": "user", "content": f"r {i}"}]}
                async with slots, session.post(f"{base_url}/chat/completions", json=body) as r:
                    await r.read()

            started = time.perf_counter()
            await asyncio.gather(*(one(i) for i in range(requests)))
            return requests / (time.perf_counter() - started)

    return asyncio.run(job())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--min-requests", type=int, default=200)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 64, 256])
    args = parser.parse_args()
    server = start_loopback(args.latency)
    try:
        print(f"latency L = {args.latency * 1000:.0f} ms")
        print(f"{'C':>5} {'requests':>9} {'req/s':>9} {'ideal C/L':>10} {'ratio':>6} {'bare':>6}")
        for concurrency in args.concurrency:
            requests = max(args.min_requests, 50 * concurrency)
            rate = measure(server.spec(), concurrency, requests)
            bare = measure_bare(server.base_url, concurrency, requests)
            ideal = concurrency / args.latency
            print(
                f"{concurrency:>5} {requests:>9} {rate:>9.1f} {ideal:>10.1f} "
                f"{rate / ideal:>6.2f} {bare / ideal:>6.2f}"
            )
    finally:
        server.stop()


if __name__ == "__main__":
    main()
