"""A trivial chatbot of your own (`python:`, sync and async) against the same run on `scripted:`.

`dialbench simulate` with a scripted user (no validator, no filter) and D dialogues of U
utterances at concurrency C, process start to exit; only the chatbot differs. The ratio is the
scripted run's wall time over the callable's (the goal: at least 0.9 at C = 64); the CPU ratio
is the same for the processes' CPU time (user + system), which other work on a shared machine
disturbs less than the wall time. Each variant runs `--repeat` times, alternating, and the
medians are printed: compare the ratios, not the seconds.
Usage: .venv/bin/python benchmarks/own_bot_throughput.py [--dialogues 600] [--utterances 10]
       [--concurrency 64] [--repeat 3]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from dialbench.schema import Dialogue
from dialbench.store import RunStore

HERE = Path(__file__).resolve().parent
BOTS = {
    "scripted:bot": "scripted",
    "python:_own_bot:reply": "python, sync",
    "python:_own_bot:reply_async": "python, async",
}


def write_config(folder: Path, dialogues: int, utterances: int, concurrency: int) -> Path:
    scenes = folder / "scenes.txt"
    scenes.write_text("\n".join(f"Scene {i}: a shop." for i in range(dialogues)), "utf-8")
    model = {"spec": "scripted:user", "max_concurrency": concurrency}
    config = {
        "languages": ["en"],
        "seeds": {"contexts": dialogues, "scenes": str(scenes)},
        "user": {"models": [model], "form": "chat"},
        "validator": {"model": None},
        "chatbots": {"models": ["scripted:bot"]},
        "filter": {"rules": False},
        "max_utterances": utterances,
        "concurrency": concurrency,
    }
    path = folder / "simulate.yaml"
    path.write_text(yaml.safe_dump(config), "utf-8")
    return path


def cpu_of_children() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed(config: Path, bot: str, dialogues: int, run_dir: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one `dialbench simulate`, process start to exit."""
    command = [sys.executable, str(HERE / "_own_bot.py"), "simulate", str(config), "--run"]
    command += [str(run_dir), "--quiet", "--chatbot", bot]
    cpu = cpu_of_children()
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, cwd=HERE)
    wall = time.perf_counter() - started
    cpu = cpu_of_children() - cpu
    with RunStore.open(run_dir) as store:
        ends = [d.end_reason for d in store.records(Dialogue)]
    assert ends == ["turn_cap"] * dialogues, set(ends)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dialogues", type=int, default=600)
    parser.add_argument("--utterances", type=int, default=10)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    walls: dict[str, list[float]] = {bot: [] for bot in BOTS}
    cpus: dict[str, list[float]] = {bot: [] for bot in BOTS}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        config = write_config(folder, args.dialogues, args.utterances, args.concurrency)
        for repeat in range(args.repeat):
            for index, bot in enumerate(BOTS):
                run_dir = folder / f"run-{repeat}-{index}"
                wall, cpu = timed(config, bot, args.dialogues, run_dir)
                walls[bot].append(wall)
                cpus[bot].append(cpu)
    calls = args.dialogues * args.utterances
    scripted = statistics.median(walls["scripted:bot"])
    scripted_cpu = statistics.median(cpus["scripted:bot"])
    print(
        f"D = {args.dialogues} dialogues x {args.utterances} utterances ({calls} calls), "
        f"C = {args.concurrency}, median of {args.repeat}, process start to exit"
    )
    print(
        f"{'chatbot':<46} {'wall s':>7} {'dialogues/s':>12} {'ratio':>6} {'CPU s':>6} "
        f"{'CPU ratio':>9}"
    )
    for bot, label in BOTS.items():
        wall, cpu = statistics.median(walls[bot]), statistics.median(cpus[bot])
        print(
            f"{label + ' (' + bot + ')':<46} {wall:>7.2f} {args.dialogues / wall:>12.1f} "
            f"{scripted / wall:>6.2f} {cpu:>6.2f} {scripted_cpu / cpu:>9.2f}"
        )


if __name__ == "__main__":
    main()
