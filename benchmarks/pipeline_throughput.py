"""`dialbench run` end to end: a pipeline's wall time against its critical path.

The pipeline imports N dialogues, then two judges judge all of them in two stages that do not
depend on each other (so they run side by side), against a loopback endpoint where every call
takes L seconds. The critical path is the import (measured alone, process start to exit, with
`dialbench import`) plus one judge stage's minimum N x L / C; the ratio printed is the pipeline's
wall time, process start to exit, over that critical path (1.0 = ideal; the goal is <= 1.15).
Also printed: the same pipeline again (every stage up to date, zero calls).
Usage: .venv/bin/python benchmarks/pipeline_throughput.py [--dialogues 1200] [--latency 0.2]
       [--concurrency 64]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml
from _loopback import answered_dialogues, start_loopback

DIALBENCH = Path(sys.executable).with_name("dialbench")


def write_dialogues(path: Path, count: int) -> None:
    lines = [d.model_dump_json() + "\n" for d in answered_dialogues(count, "es")]
    path.write_text("".join(lines), encoding="utf-8")


def timed(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dialogues", type=int, default=1200)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=64)
    args = parser.parse_args()
    server = start_loopback(args.latency)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            write_dialogues(folder / "dialogues.jsonl", args.dialogues)
            import_alone = timed(
                [str(DIALBENCH), "import", str(folder / "dialogues.jsonl"), "--run", tmp + "/i"]
            )
            judges = [
                {"spec": server.spec(name), "max_concurrency": args.concurrency}
                for name in ("judge-a", "judge-b")
            ]
            pipeline = {
                "run": str(folder / "run"),
                "stages": [
                    {"stage": "import", "file": "dialogues.jsonl"},
                    {"stage": "judge", "name": "a", "protocol": "holistic", "judges": [judges[0]]},
                    {"stage": "judge", "name": "b", "protocol": "holistic", "judges": [judges[1]]},
                ],
            }
            (folder / "pipeline.yaml").write_text(yaml.safe_dump(pipeline), encoding="utf-8")
            command = [str(DIALBENCH), "run", str(folder / "pipeline.yaml")]
            before = server.stats()["requests"]
            wall = timed(command)
            requests = server.stats()["requests"] - before
            rerun = timed(command)
            assert requests == 2 * args.dialogues, requests
            judge_minimum = args.dialogues * args.latency / args.concurrency
            critical = import_alone + judge_minimum
            print(
                f"L = {args.latency * 1000:.0f} ms, C = {args.concurrency}, "
                f"{args.dialogues} dialogues, 2 judge stages side by side"
            )
            print(f"import alone (process start to exit)   {import_alone:7.2f} s")
            print(f"one judge stage's minimum N*L/C         {judge_minimum:7.2f} s")
            print(f"critical path                           {critical:7.2f} s")
            print(f"dialbench run (process start to exit)  {wall:7.2f} s")
            print(f"wall / critical path                    {wall / critical:7.2f}")
            print(
                f"if the stages ran one after the other  {import_alone + 2 * judge_minimum:7.2f} s"
            )
            print(f"rerun, every stage up to date           {rerun:7.2f} s")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
