"""The packaged judges' cards: `dialbench probe` run for each packaged judge on one slice of the
probe set (one base dialogue per language, all seven languages, every kind placed in the chatbot's
turn, under issues and under replay, the pair protocol, in both orders), each timed from process
start to exit in a run directory of its own. Prints each judge's pooled rows; `--write` stores the
cards in the package (`dialbench/probes/judge_cards.yaml`), which `dialbench models` shows.

Usage: .venv/bin/python benchmarks/judge_cards.py [--judge local:qwen2.5-0.5b ...] [--write]
       [--run runs/judge_cards]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from dialbench.probes.packaged_cards import PackagedCards, write_cards
from dialbench.probes.probing import read_card

JUDGES = ["local:qwen2.5-0.5b", "local:qwen2.5-1.5b"]
OPTIONS = ["--protocol", "issues", "--protocol", "replay", "--placement", "chatbot"]
OPTIONS += ["--limit", "1"]
SLICE = (
    "dialbench probe JUDGE " + " ".join(OPTIONS) + ": one base dialogue in each of the seven "
    "languages, every kind placed in the chatbot's turn, under issues and replay (both orders)"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--judge", nargs="+", default=JUDGES)
    parser.add_argument("--run", type=Path, default=Path("runs/judge_cards"))
    parser.add_argument("--write", action="store_true", help="store the cards in the package")
    args = parser.parse_args()
    cards = []
    for judge in args.judge:
        run = args.run / judge.replace(":", "_").replace("/", "_")
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "dialbench", "probe", judge, *OPTIONS, "--run", str(run), "-q"],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        seconds = time.perf_counter() - started
        card = read_card(run)
        cards.append(card)
        print(f"{judge}: dialbench probe took {seconds:.0f} s (process start to exit)")
        for row in card.pooled_rows():
            extra = ""
            if row.first_slot is not None and row.longer is not None:
                extra = (
                    f", first slot {row.first_slot.shown('.2f')}, longer {row.longer.shown('.2f')}"
                )
            obeyed = row.obeyed.shown(".2f") if row.obeyed else "-"
            control = row.control.shown(".2f") if row.control else "-"
            print(
                f"  {row.protocol}: obeyed {obeyed}, control {control}, most obeyed "
                f"{row.most_obeyed}, unscored {row.unscored or 0:.0%}{extra}"
            )
        for spent in card.spend:
            per = "-" if spent.seconds_per_1000 is None else f"{spent.seconds_per_1000:,.0f}"
            print(f"  {spent.protocol}: {per} s per 1,000 judgments ({spent.judged} judged)")
    print(write_cards(PackagedCards(measured=SLICE, cards=cards), write=args.write))


if __name__ == "__main__":
    main()
