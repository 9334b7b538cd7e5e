"""Local-model stages side by side against one after another: `dialbench run` of a pipeline that
imports N dialogues and judges them in K stages on the packaged local models (holistic, issues
and submetrics on the 0.5B Qwen, holistic on the 270M Gemma), which do not depend on each other
and so run side by side, against the same stages each in a pipeline of its own, one after
another.

Every command is timed process start to exit. "One after another" is the import pipeline alone
plus, for each stage, its own pipeline less that import (each pays its own process start and
model load, so it is a little dear); the ratio printed is side by side over one after another:
above 1.0, stages side by side take longer than they would in turn. All local generation shares
one thread and llama.cpp's threads (`llm/backends/local.py`), so the ratio says what taking turns
costs: each switch of stage is a switch of prompt, which the context's prefix cache pays for.
Usage: .venv/bin/python benchmarks/local_stages.py [--dialogues 4] [--stages 2 3 4]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

DIALBENCH = Path(sys.executable).with_name("dialbench")
QWEN = "local:qwen2.5-0.5b"
GEMMA = {"spec": "local:gemma3-270m", "chat_format": "gemma"}
# Stage name -> its protocol and judge.
STAGES: dict[str, tuple[str, Any]] = {
    "holistic": ("holistic", QWEN),
    "issues": ("issues", QWEN),
    "submetrics": ("submetrics", QWEN),
    "holistic-gemma": ("holistic", GEMMA),
}


def pipeline(folder: Path, name: str, judged: tuple[str, ...], dialogues: int) -> Path:
    stages: list[dict[str, Any]] = [{"stage": "import", "example": "multilingual_dialogues"}]
    stages += [
        {"stage": "judge", "name": stage, "protocol": STAGES[stage][0]}
        | {"judges": [STAGES[stage][1]], "limit": dialogues, "languages": ["en"]}
        for stage in judged
    ]
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump({"run": str(folder / name), "stages": stages}), "utf-8")
    return path


def timed(path: Path) -> float:
    started = time.perf_counter()
    subprocess.run([str(DIALBENCH), "run", str(path)], check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dialogues", type=int, default=4)
    parser.add_argument("--stages", type=int, nargs="+", default=[2, 3, 4])
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        alone = timed(pipeline(folder, "import", (), arguments.dialogues))
        wanted = max(arguments.stages)
        single = {
            stage: timed(pipeline(folder, stage, (stage,), arguments.dialogues)) - alone
            for stage in list(STAGES)[:wanted]
        }
        print(f"{arguments.dialogues} English dialogues a stage; process start to exit")
        print(f"import alone                   {alone:7.1f} s")
        for stage, seconds in single.items():
            print(f"{stage:<14} alone, less it {seconds:7.1f} s")
        for k in arguments.stages:
            judged = tuple(STAGES)[:k]
            together = timed(pipeline(folder, f"together-{k}", judged, arguments.dialogues))
            in_turn = alone + sum(single[stage] for stage in judged)
            print(
                f"{k} stages side by side {together:7.1f} s, one after another {in_turn:7.1f} s:"
                f" ratio {together / in_turn:.2f}"
            )


if __name__ == "__main__":
    main()
