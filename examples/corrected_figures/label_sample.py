"""Stand in for the annotators of docs/corrected.md: the labels of the dialogues a sample picked
(its JSON Lines file: a line per dialogue, with `dialogue` or `dialogue_id`), taken from the
simulation's truth (`simulate_judged_run.py`), as `dialbench annotate import` reads them. With
real annotators, the annotation app (or any tool that writes the same shape) makes this file.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def picked(line: dict[str, object]) -> str:
    dialogue = line.get("dialogue")
    return str(dialogue["id"] if isinstance(dialogue, dict) else line["dialogue_id"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sample", type=Path, help="the sample's JSON Lines file")
    parser.add_argument("truth", type=Path, help="truth.jsonl of simulate_judged_run.py")
    parser.add_argument("output", type=Path)
    args = parser.parse_args()
    lines = args.sample.read_text(encoding="utf-8").splitlines()
    wanted = {picked(json.loads(line)) for line in lines if line.strip()}
    truth = [json.loads(line) for line in args.truth.read_text(encoding="utf-8").splitlines()]
    labels = [record for record in truth if record["target"]["dialogue_id"] in wanted]
    args.output.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in labels))
    print(f"labelled {len(labels)} of the {len(wanted)} dialogues sampled")


if __name__ == "__main__":
    main()
