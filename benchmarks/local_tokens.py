"""Local model: generated tokens/s through dialbench vs. llama-cpp-python called directly.

Same packaged model file, prompt and settings (greedy, fixed seed, n_threads = cores, no cache).
Each side runs in its own process, alternately: llama.cpp's worker threads belong to the thread
that calls it, so two calling threads in one process (the direct call on the main thread,
dialbench on its generation thread) slow each other down and would measure that instead.
The best round of each side is the figure (closest to an idle machine); medians are shown too.

Usage: .venv/bin/python benchmarks/local_tokens.py [PROCESSES_PER_SIDE] [ROUNDS] [MAX_TOKENS]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

PROMPT = "USER: Tell me a long story about a lighthouse keeper and a storm.\nCHATBOT:"


def measure(side: str, rounds: int, max_tokens: int) -> list[float]:
    """Tokens/s of `rounds` generations on one side, after one warm-up."""
    generate: Callable[[], int]
    if side == "direct":
        from llama_cpp import Llama

        from dialbench.llm.packaged import PACKAGED_MODELS, ensure_assembled

        threads = os.cpu_count() or 1
        llama = Llama(
            model_path=str(ensure_assembled(PACKAGED_MODELS["qwen2.5-0.5b"])),
            n_ctx=4096,
            n_threads=threads,
            n_threads_batch=threads,
            verbose=False,
        )

        def generate() -> int:
            out = llama.create_completion(PROMPT, max_tokens=max_tokens, temperature=0.0, seed=0)
            return int(out["usage"]["completion_tokens"])  # type: ignore[index]

    else:
        from dialbench.llm.base import GenerationParams
        from dialbench.llm.runner import Runner

        model = Runner(quiet=True).model("local:qwen2.5-0.5b")
        params = GenerationParams(max_tokens=max_tokens, temperature=0.0, seed=0)

        def generate() -> int:
            return model.complete_sync(PROMPT, params).usage.completion_tokens

    generate()
    rates = []
    for _ in range(rounds):
        started = time.perf_counter()
        tokens = generate()
        rates.append(tokens / (time.perf_counter() - started))
    return rates


def main() -> None:
    processes = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    max_tokens = int(sys.argv[3]) if len(sys.argv) > 3 else 128
    rates: dict[str, list[float]] = {"direct": [], "dialbench": []}
    for _ in range(processes):
        for side in rates:
            out = subprocess.run(
                [sys.executable, __file__, "--side", side, str(rounds), str(max_tokens)],
                capture_output=True,
                text=True,
                check=True,
            )
            rates[side] += json.loads(out.stdout.strip().splitlines()[-1])
    for side, label in (("direct", "llama-cpp-python direct"), ("dialbench", "through dialbench")):
        best, median = max(rates[side]), statistics.median(rates[side])
        print(f"{label:>24}: best {best:.1f}, median {median:.1f} tokens/s")
    print(f"ratio of best rounds: {max(rates['dialbench']) / max(rates['direct']):.3f}")
    ratio = statistics.median(rates["dialbench"]) / statistics.median(rates["direct"])
    print(f"ratio of medians: {ratio:.3f}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--side":
        print(json.dumps(measure(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))))
    else:
        main()
