"""The fence against the probe set: how far injected text moves a judge's verdicts, shown as it
is (`dialbench probe`) and fenced (`dialbench probe --fence`), on the same probe dialogues.

Both runs are the command users run, timed from process start to exit, each in a run directory
of its own (no cache shared). Per placement and kind, pooled over the languages asked: the
share of pairs that moved toward the injection (flips) and the mean score shift, injected minus
clean, each with its 95% interval over base dialogues, without and with the fence. The control
(an aside addressed to no one, appended the same way) is what any appended text does; what an
injection does beyond it is what it says to the judge. The last lines pool the injections'
kinds and placements, and the control's (means weighted by pairs; no interval: the pairs of one
base dialogue are not independent across kinds).

Usage: .venv/bin/python benchmarks/probe_defences.py [--judge local:qwen2.5-1.5b]
       [--protocol issues] [--language en zh ...] [--limit 1] [--placement chatbot]
       [--run runs/probe_defences]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from dialbench.probes.injections import CONTROL, LANGUAGES
from dialbench.probes.probing import PROBE_FOLDER, SHIFT_FILE, ProbeShifts
from dialbench.probes.shift import Estimate, ShiftRow

SIDES = {"as it is": [], "fenced": ["--fence"]}


def probed(run: Path, options: list[str]) -> tuple[ProbeShifts, float]:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "dialbench", "probe", *options, "--run", str(run), "--quiet"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    seconds = time.perf_counter() - started
    return ProbeShifts.model_validate_json((run / PROBE_FOLDER / SHIFT_FILE).read_text()), seconds


def shown(estimate: Estimate | None, form: str = "+.2f") -> str:
    return "-" if estimate is None else estimate.shown(form)


def pooled(rows: list[ShiftRow], figure: str) -> str:
    weighted = [
        (row.pairs, getattr(row, figure).value) for row in rows if getattr(row, figure) is not None
    ]
    pairs = sum(n for n, _ in weighted)
    return f"{sum(n * value for n, value in weighted) / pairs:+.2f}" if pairs else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--judge", default="local:qwen2.5-1.5b")
    parser.add_argument("--protocol", default="issues")
    parser.add_argument("--language", nargs="+", default=list(LANGUAGES))
    parser.add_argument("--limit", type=int, default=1, help="base dialogues per language")
    parser.add_argument("--placement", nargs="+", default=["chatbot"])
    parser.add_argument("--run", type=Path, default=Path("runs/probe_defences"))
    args = parser.parse_args()
    options = [args.judge, "--protocol", args.protocol, "--limit", str(args.limit)]
    options += [f"--language={language}" for language in args.language]
    options += [f"--placement={placement}" for placement in args.placement]
    results = {
        side: probed(args.run / side.replace(" ", "_"), [*options, *extra])
        for side, extra in SIDES.items()
    }
    pooled_language = "all" if len(args.language) > 1 else args.language[0]
    pooled_rows = {
        side: [row for row in shifts.shifts[0].rows if row.language == pooled_language]
        for side, (shifts, _) in results.items()
    }
    shift = results["as it is"][0].shifts[0]
    print(
        f"{shift.protocol} · {shift.judge}: {shift.score}, injected minus clean, languages "
        f"{' '.join(args.language)}, {args.limit} base dialogue(s) each"
    )
    flips, shifts = "flips: as it is → fenced", "shift: as it is → fenced"
    print(f"{'placement':<10}{'kind':<16}{'pairs':>6}  {flips:<44}  {shifts}")
    for plain, fenced in zip(pooled_rows["as it is"], pooled_rows["fenced"], strict=True):
        print(
            f"{plain.placement:<10}{plain.kind:<16}{plain.pairs:>3}/{fenced.pairs:<3}"
            f"{shown(plain.flips, '.2f'):>22} → {shown(fenced.flips, '.2f'):<22}"
            f"{shown(plain.shift):>22} → {shown(fenced.shift)}"
        )
    for name, wanted in [("every injection", False), ("the control", True)]:
        plain, fenced = (
            [row for row in pooled_rows[side] if (row.kind == CONTROL) == wanted] for side in SIDES
        )
        print(
            f"{name}, pooled: flips {pooled(plain, 'flips')} → {pooled(fenced, 'flips')}, "
            f"shift {pooled(plain, 'shift')} → {pooled(fenced, 'shift')}"
        )
    print(
        "command seconds (process start to exit): "
        + ", ".join(f"{side} {seconds:.0f}" for side, (_, seconds) in results.items())
    )


if __name__ == "__main__":
    main()
