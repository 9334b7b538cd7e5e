"""Local model: generated tokens/s through dialbench vs. llama-cpp-python called directly.

Same packaged model file, prompt and settings (greedy, fixed seed, n_threads = cores); the
dialbench call has no cache so every round generates. Rounds alternate. llama.cpp's threads
wait for each other, so another busy process on a 2-core machine slows a round several-fold:
the best round of each side (closest to an idle machine) is the figure, medians are shown too,
and so is the share of each dialbench call spent inside llama-cpp-python, which no other process
can skew.
Usage: .venv/bin/python benchmarks/local_tokens.py [ROUNDS] [MAX_TOKENS]
"""

from __future__ import annotations

import os
import statistics
import sys
import time

from llama_cpp import Llama

from dialbench.llm.base import GenerationParams
from dialbench.llm.packaged import PACKAGED_MODELS, ensure_assembled
from dialbench.llm.runner import Runner

PROMPT = "USER: Tell me a long story about a lighthouse keeper and a storm.\nCHATBOT:"


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    max_tokens = int(sys.argv[2]) if len(sys.argv) > 2 else 128
    path = ensure_assembled(PACKAGED_MODELS["qwen2.5-0.5b"])
    threads = os.cpu_count() or 1
    direct = Llama(
        model_path=str(path), n_ctx=4096, n_threads=threads, n_threads_batch=threads, verbose=False
    )
    model = Runner(quiet=True).model("local:qwen2.5-0.5b")
    params = GenerationParams(max_tokens=max_tokens, temperature=0.0, seed=0)

    def run_direct() -> float:
        started = time.perf_counter()
        out = direct.create_completion(PROMPT, max_tokens=max_tokens, temperature=0.0, seed=0)
        return out["usage"]["completion_tokens"] / (time.perf_counter() - started)  # type: ignore[index]

    inside_llama: list[float] = []  # share of each dialbench call spent inside llama.cpp

    def run_dialbench() -> float:
        started = time.perf_counter()
        reply = model.complete_sync(PROMPT, params)
        wall = time.perf_counter() - started
        inside_llama.append(reply.latency_s / wall)
        return reply.usage.completion_tokens / wall

    run_direct(), run_dialbench()  # warm both contexts
    direct_rates, dialbench_rates = [], []
    inside_llama.clear()
    for _ in range(rounds):
        direct_rates.append(run_direct())
        dialbench_rates.append(run_dialbench())
    for name, rates in (
        ("llama-cpp-python direct", direct_rates),
        ("through dialbench", dialbench_rates),
    ):
        print(f"{name:>24}: best {max(rates):.1f}, median {statistics.median(rates):.1f} tokens/s")
    print(f"ratio of best rounds: {max(dialbench_rates) / max(direct_rates):.3f}")
    # Immune to other processes: the part of a dialbench call spent in llama-cpp-python itself.
    print(f"time inside llama-cpp-python per dialbench call: min {min(inside_llama):.4f}")


if __name__ == "__main__":
    main()
