"""`dialbench simulate` end to end against a loopback endpoint with injected latency.

Every model call takes L seconds. With the validator accepting every user turn (one attempt), a
dialogue of U utterances is a chain of calls: each user turn is a user call plus a validator call,
each chatbot turn one call. The critical-path minimum for D dialogues at concurrency C (dialogues
in flight) is D x calls x L / C; the ratio printed is that minimum over the wall time of the
command, process start to exit (1.0 = ideal). By default each C gets the dialogues that take 30 s
at the ideal (the issue's goal counts process start for runs that long). The cache and store are
on; "rerun s" is the same command again over the finished store (every dialogue skipped).
Usage: .venv/bin/python benchmarks/simulate_throughput.py [--dialogues N] [--latency 0.2]
       [--utterances 10] [--concurrency 64 256]
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import yaml
from _loopback import Loopback, start_loopback

from dialbench.schema import Dialogue
from dialbench.simulate import SimulationConfig
from dialbench.store import RunStore

DIALBENCH = Path(sys.executable).with_name("dialbench")

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


def timed_simulate(config_file: Path, run_dir: Path) -> float:
    command = [str(DIALBENCH), "simulate", str(config_file), "--run", str(run_dir), "--quiet"]
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dialogues", type=int, help="default: 30 s at the ideal, per C")
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--utterances", type=int, default=10)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[64, 256])
    args = parser.parse_args()
    chain = calls_per_dialogue(args.utterances)
    server = start_loopback(args.latency)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            print(
                f"L = {args.latency * 1000:.0f} ms, dialogues of "
                f"{args.utterances} utterances = {chain} chained calls each"
            )
            print(
                f"{'C':>4} {'N':>5} {'wall s':>7} {'minimum s':>9} {'ratio':>6} "
                f"{'dialogues/min':>14} {'requests':>9} {'expected':>9} {'rerun s':>8}"
            )
            for concurrency in args.concurrency:
                n = args.dialogues or math.ceil(30 * concurrency / (chain * args.latency))
                folder = Path(tmp) / f"c{concurrency}"
                folder.mkdir()
                scenes = folder / "scenes.txt"
                lines = (f"Scene {i}. " + DIRECTIVE.format(i=i) for i in range(n))
                scenes.write_text("\n".join(lines), "utf-8")
                setup = config(server, scenes, n, args.utterances, concurrency)
                config_file = folder / "simulate.yaml"
                config_file.write_text(yaml.safe_dump(setup.model_dump(mode="json")), "utf-8")
                before = server.stats()["requests"]
                wall = timed_simulate(config_file, folder / "run")
                requests = server.stats()["requests"] - before
                rerun = timed_simulate(config_file, folder / "run")
                with RunStore.open(folder / "run") as store:
                    ends = Counter(d.end_reason for d in store.records(Dialogue))
                assert ends == {"turn_cap": n}, ends
                minimum = n * chain * args.latency / concurrency
                print(
                    f"{concurrency:>4} {n:>5} {wall:>7.2f} {minimum:>9.2f} {minimum / wall:>6.2f} "
                    f"{n / wall * 60:>14.0f} {requests:>9} {n * chain:>9} {rerun:>8.2f}"
                )
    finally:
        server.stop()


if __name__ == "__main__":
    main()
