"""How far each way of aligning a judge to humans moves it, per language, on DBDC3.

The packaged 1.5B judge rates the sensibleness (`submetrics`, `dimensions=sensibleness`,
`scoring=expected`) of the chatbot turns of a fixed DBDC3 subset (`_dbdc3_subset.py`: 12
evaluation dialogues per language, en and ja, with 30 breakdown labels per turn), four ways:

- **raw**: zero-shot, the English prompt (MEDAL's default);
- **few-shot**: FEW_SHOT examples of the dialogue's language in the prompt, chosen by the
  few-shot rule from the other folds' dialogues: the dialogues fall in folds `Shard(k, FOLDS)`
  of their ids, and each fold's are judged with a pool of the others' examples, so no turn is
  judged beside its own dialogue's labels;
- **localised**: the prompt in the dialogue's language (`--prompt-language dialogue`);
- **calibrated**: each of those through `dialbench calibrate`'s isotonic map onto the humans'
  mean breakdown (X < T < O), every turn's value from the map fitted on the other folds'
  dialogues (`--folds FOLDS`).

The examples' labels stand in for reviews: each turn's 30 humans as one sensibleness score,
1 + 2 × the mean of X = 0, T = 1, O = 2, rounded (so all X is 1, all O is 5); they are given to
`judge` as its pool and never stored. Every figure is `metaeval`'s Pearson r against the humans'
mean breakdown with its 95% interval from the bootstrap over dialogues, beside the humans' own
ceiling; "Δ vs raw" is the paired difference on the turns both rated, over the same resamples;
RMSE is a calibrated condition's distance to the humans' mean breakdown on their 0–2 scale (a
judge's own 1–5 are on none).
Calls are cached in the run (default runs/judge_alignment), so a second run prints the same
figures at once.
Usage: .venv/bin/python benchmarks/judge_alignment.py [--run DIR] [--dialogues 12] [--threads 2]
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
from _dbdc3_subset import prepare

from dialbench import Dialogue, Judgment, RunStore
from dialbench.calibrate.api import calibrate
from dialbench.calibrate.config import CalibrateConfig, FitSettings
from dialbench.judge.api import judge
from dialbench.judge.config import JudgeConfig
from dialbench.judge.few_shot import HumanExample, human_examples
from dialbench.judge.settings import JudgeSettings
from dialbench.llm.specs import ModelConfig
from dialbench.metaeval.config import MetaEvalOptions, ScaleSpec
from dialbench.metaeval.evaluate import meta_evaluate
from dialbench.metaeval.inference import Inference, infer, observed_and_resampled
from dialbench.metaeval.weighted import pearson
from dialbench.ratings import Rating, from_store, item_key, item_target
from dialbench.resampling import ClusterResamples
from dialbench.schema import Annotation
from dialbench.sharding import Shard

JUDGE = "local:qwen2.5-1.5b"
OPTIONS = {"dimensions": "sensibleness", "scoring": "expected"}
FOLDS = 3
FEW_SHOT = 3
ORDER = {"X": 0, "T": 1, "O": 2}
REVIEWER = "dbdc3-consensus"
LANGUAGES = ("en", "ja", "all")
RESAMPLES = 1000
SEED = 0
BREAKDOWN = ScaleSpec(scale="ordinal", order=["X", "T", "O"])


def consensus_reviews(store: RunStore) -> list[Annotation]:
    """Each labelled chatbot turn's humans as one sensibleness score, the examples' labels."""
    labels: dict[str, list[int]] = defaultdict(list)
    targets = {}
    for annotation in store.records(Annotation):
        value = annotation.labels.get("breakdown")
        if isinstance(value, str) and annotation.annotator_id != REVIEWER:
            key = item_key(annotation.target)
            labels[key].append(ORDER[value])
            targets[key] = annotation.target
    return [
        Annotation(
            annotator_id=REVIEWER,
            target=targets[key],
            labels={"sensibleness": round(1 + 2 * float(np.mean(values)))},
        )
        for key, values in labels.items()
    ]


def config(threads: int, **options: object) -> JudgeConfig:
    return JudgeConfig(
        protocol="submetrics",
        options=OPTIONS | options,
        judges=[ModelConfig(spec=JUDGE, n_threads=threads)],
    )


def _report(what: str, started: float, summary: object) -> None:
    tally = summary.judges[0]  # type: ignore[attr-defined]
    print(
        f"{what}: {tally.judgments} turns, {tally.ok} judged now, {tally.already_ok} stored, "
        f"{tally.unscored} unscored, {time.perf_counter() - started:.0f} s",
        flush=True,
    )


def judge_raw(run: Path, threads: int) -> None:
    started = time.perf_counter()
    _report("raw", started, judge(config(threads), run, quiet=True))


def judge_few_shot(run: Path, threads: int, examples: list[HumanExample]) -> None:
    """Each fold's dialogues with a pool of the other folds' examples."""
    for k in range(FOLDS):
        fold = Shard(index=k, count=FOLDS)
        pool = [e for e in examples if not fold.owns(e.target.dialogue_id)]
        started = time.perf_counter()
        summary = judge(
            config(threads, few_shot=FEW_SHOT), run, quiet=True, shard=fold, examples=pool
        )
        _report(f"few-shot, fold {fold}", started, summary)


def examples(run: Path) -> list[HumanExample]:
    """The few-shot pool: the consensus reviews, given to `judge` and never stored, so the run's
    humans stay DBDC3's."""
    with RunStore.open(run, create=False) as store:
        dialogues = {d.id: d for d in store.records(Dialogue)}
        return human_examples(consensus_reviews(store), dialogues)


def judge_localised(run: Path, threads: int) -> None:
    """Every turn with the prompt in its dialogue's language (English turns: raw's prompts)."""
    started = time.perf_counter()
    localised = config(threads).model_copy(
        update={"settings": JudgeSettings(prompt_language="dialogue")}
    )
    _report("localised", started, judge(localised, run, quiet=True))


def calibrate_all(run: Path) -> None:
    """Every configuration's isotonic map onto the humans' mean breakdown, each labelled turn
    scored by the map of the other folds (`dialbench calibrate --folds FOLDS`)."""
    output = calibrate(
        CalibrateConfig(
            protocol="submetrics",
            fit=FitSettings(
                pairs={"sensibleness": "breakdown"},
                scales={"breakdown": BREAKDOWN},
                folds=FOLDS,
            ),
            bootstrap_resamples=RESAMPLES,
            seed=SEED,
        ),
        run,
    )
    print(f"calibrated: {output.stored.added} judgments added; " + "; ".join(output.notes))


def condition(judgment: Judgment) -> str | None:
    """The way of aligning a judgment shows, from its configuration (None: not this study's)."""
    configuration = judgment.configuration
    if judgment.judge_model != JUDGE or configuration is None:
        return None
    options = configuration.options
    if any(options.get(key) != value for key, value in OPTIONS.items()):
        return None
    name = "few-shot" if options.get("few_shot") else "raw"
    if configuration.prompt_language is not None:
        name = "localised" if name == "raw" else f"{name}, localised"
    return f"{name} + calibrated" if configuration.calibration else name


class Study:
    """The humans' breakdown labels and, per condition, the judge's sensibleness of each turn."""

    def __init__(self, run: Path) -> None:
        with RunStore.open(run, create=False) as store:
            ratings, judgments = from_store(store, ["submetrics"])
            self.language = {d.id: d.language for d in store.records(Dialogue)}
        self.humans = [r for r in ratings if r.kind == "human" and r.dimension == "breakdown"]
        self.values: dict[str, dict[str, float]] = defaultdict(dict)
        for j in judgments:
            name = condition(j)
            if name is not None and j.result is not None:
                value = j.result.get("sensibleness", j.result.get("breakdown"))
                self.values[name][item_key(j.target)] = float(value)  # type: ignore[arg-type]
        self.conditions = sorted(self.values, key=lambda c: (c != "raw", c))

    def ratings(self) -> list[Rating]:
        """The judge's values as each condition's rating of the humans' dimension."""
        judged = [
            Rating(
                item_id=item,
                rater=name,
                kind="judge",
                dimension="breakdown",
                value=value,
                language=self.language[item_target(item).dialogue_id],
            )
            for name, values in self.values.items()
            for item, value in values.items()
        ]
        return self.humans + judged

    def human_mean(self) -> dict[str, float]:
        labels: dict[str, list[int]] = defaultdict(list)
        for r in self.humans:
            labels[r.item_id].append(ORDER[str(r.value)])
        return {item: float(np.mean(values)) for item, values in labels.items()}

    def items(self, name: str, language: str) -> list[str]:
        """The turns `name` rated in `language` (or all) that the humans labelled."""
        truth = self.human_mean()
        return sorted(
            item
            for item in self.values[name].keys() & truth.keys()
            if language == "all" or self.language[item_target(item).dialogue_id] == language
        )

    def error(self, name: str, language: str) -> float | None:
        """A calibrated condition's root mean squared distance to the humans' mean breakdown
        (its values are on their scale; a judge's own 1-5 are not)."""
        if not name.endswith("calibrated"):
            return None
        truth, items = self.human_mean(), self.items(name, language)
        return float(np.sqrt(np.mean([(self.values[name][i] - truth[i]) ** 2 for i in items])))

    def gain(self, name: str, language: str) -> Inference:
        """Pearson r of `name` minus raw's on the turns both rated, over the same resamples of
        dialogues."""
        truth = self.human_mean()
        items = [i for i in self.items(name, language) if i in self.values["raw"]]
        x = np.array([self.values[name][i] for i in items])
        base = np.array([self.values["raw"][i] for i in items])
        y = np.array([truth[i] for i in items])
        drawn = ClusterResamples.draw([item_target(i).dialogue_id for i in items], RESAMPLES, SEED)
        weights = observed_and_resampled(drawn)
        return infer(pearson(x, y, weights) - pearson(base, y, weights), drawn.n_clusters)


def _figure(value: float | None, low: float | None, high: float | None) -> str:
    if value is None:
        return "–"
    shown = f"{value:+.2f}" if low is None else f"{value:.2f}"
    if low is not None and high is not None:
        shown = f"{value:.2f} [{low:.2f}, {high:.2f}]"
    return shown.replace("-", "−")


def table(study: Study) -> str:
    """Pearson r per condition and language with its interval, the paired gain over raw, and
    the humans' ceiling on the same turns."""
    options = MetaEvalOptions(
        scales={"breakdown": BREAKDOWN},
        bootstrap_resamples=RESAMPLES,
        seed=SEED,
    )
    report = meta_evaluate(study.ratings(), [], options)
    rows = {
        (row.rater, row.language): row
        for row in report.correlation
        if row.dimension == "breakdown" and row.method == "pearson"
    }
    lines = [
        "| judge | language | turns (dialogues) | Pearson r [95% CI] | Δ vs raw [95% CI] | RMSE |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name in study.conditions:
        for language in LANGUAGES:
            row = rows.get((name, language))
            if row is None:
                continue
            gain = "–"
            if name != "raw":
                found = study.gain(name, language)
                gain = _figure(found.value, found.low, found.high)
            error = study.error(name, language)
            lines.append(
                f"| {name} | {language} | {row.n_items} ({row.n_dialogues}) | "
                f"{_figure(row.r, row.ci_low, row.ci_high)} | {gain} | "
                f"{'–' if error is None else f'{error:.2f}'} |"
            )
    for (rater, language), row in sorted(rows.items()):
        if rater.startswith("human"):
            lines.append(
                f"| human (ceiling) | {language} | {row.n_items} ({row.n_dialogues}) | "
                f"{_figure(row.r, row.ci_low, row.ci_high)} | – | – |"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--run", type=Path, default=Path("runs/judge_alignment"))
    parser.add_argument("--dialogues", type=int, default=12, help="imported, per language")
    parser.add_argument("--threads", type=int, default=2, help="llama.cpp threads")
    arguments = parser.parse_args()
    prepare(arguments.run, arguments.dialogues)
    judge_raw(arguments.run, arguments.threads)
    judge_few_shot(arguments.run, arguments.threads, examples(arguments.run))
    judge_localised(arguments.run, arguments.threads)
    calibrate_all(arguments.run)
    print(table(Study(arguments.run)))


if __name__ == "__main__":
    main()
