"""Simulation throughput against a loopback endpoint with injected latency.

Every model call takes L seconds. With the validator accepting every user turn (one attempt), a
dialogue of U utterances is a chain of calls: each user turn is a user call plus a validator call,
each chatbot turn one call. The critical-path minimum for D dialogues at concurrency C is
D x calls x L / C; the ratio printed is that minimum over the measured wall time (1.0 = ideal).
The cache and store are on; "rerun s" is a second run over the finished store (all skipped).
Usage: .venv/bin/python benchmarks/simulate_throughput.py [--dialogues 256] [--latency 0.2]
"""

from __future__ import annotations

import argparse
import math
import tempfile
import time
from pathlib import Path

from _loopback import Loopback, start_loopback

from dialbench.simulate import SimulationConfig, simulate

# The loopback server answers a prompt holding this directive with its text: the user and the
# validator see the scene (transcript form) and say "Yes, ...", which the validator's parser takes
# as acceptance; the chatbot sees only the dialogue and echoes it. The scene number keeps every
# dialogue's calls distinct, so none is answered from another dialogue's cache entry.
DIRECTIVE = "[[replies:Yes, about scene {i}.]]"


def config(
    server: Loopback, scenes: Path, dialogues: int, utterances: int, concurrency: int
) -> SimulationConfig:
    def model(name: str) -> dict[str, object]:
        return {"spec": server.spec(name), "max_concurrency": 4 * concurrency}

    return SimulationConfig.model_validate(
        {
            "languages": ["en"],
            "seeds": {"contexts": dialogues, "scenes": str(scenes)},
            "user": {"models": [model("user")], "form": "transcript"},
            "validator": {"model": model("judge"), "form": "transcript"},
            "chatbots": {"models": [model("bot")]},
            "max_utterances": utterances,
            "concurrency": concurrency,
        }
    )


def calls_per_dialogue(utterances: int) -> int:
    user_turns = math.ceil(utterances / 2)
    return 2 * user_turns + utterances // 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dialogues", type=int, default=256)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--utterances", type=int, default=10)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[64])
    args = parser.parse_args()
    server = start_loopback(args.latency)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            scenes = Path(tmp) / "scenes.txt"
            scenes.write_text(
                "\n".join(f"Scene {i}. " + DIRECTIVE.format(i=i) for i in range(args.dialogues)),
                "utf-8",
            )
            chain = calls_per_dialogue(args.utterances)
            print(
                f"L = {args.latency * 1000:.0f} ms, {args.dialogues} dialogues of "
                f"{args.utterances} utterances = {chain} chained calls each"
            )
            print(
                f"{'C':>4} {'wall s':>7} {'minimum s':>9} {'ratio':>6} {'dialogues/min':>14} "
                f"{'requests':>9} {'expected':>9} {'rerun s':>8}"
            )
            for concurrency in args.concurrency:
                run_dir = Path(tmp) / f"run-{concurrency}"
                setup = config(server, scenes, args.dialogues, args.utterances, concurrency)
                before = server.stats()["requests"]
                started = time.perf_counter()
                summary = simulate(setup, run_dir, quiet=True)
                wall = time.perf_counter() - started
                requests = server.stats()["requests"] - before
                assert summary.generated == args.dialogues, summary
                assert summary.end_reasons == {"turn_cap": args.dialogues}, summary
                started = time.perf_counter()
                simulate(setup, run_dir, quiet=True)
                rerun = time.perf_counter() - started
                minimum = args.dialogues * chain * args.latency / concurrency
                expected = args.dialogues * chain
                print(
                    f"{concurrency:>4} {wall:>7.2f} {minimum:>9.2f} {minimum / wall:>6.2f} "
                    f"{args.dialogues / wall * 60:>14.0f} {requests:>9} {expected:>9} {rerun:>8.2f}"
                )
    finally:
        server.stop()


if __name__ == "__main__":
    main()
