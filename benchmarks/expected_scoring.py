"""The packaged local judges' sensibleness against DBDC3's humans, scored by argmax and expected.

A fixed subset of the full DBDC3 release (`../shared/data/dbdc3_breakdown_ja_en.zip`): DIALOGUES
evaluation dialogues per language drawn with a fixed seed, spread over the language's chatbots,
imported with their 30 breakdown labels per turn; the first LIMITS of each language (6 for each
judge; in the order of the release's files: by chatbot, then file) are judged, as `judge
--limit` takes them. Each packaged judge rates the sensibleness of every
chatbot turn of those (`submetrics`, `dimensions=sensibleness`) twice: the score it wrote
(`argmax`) and the expectation over the five scores' token probabilities (`expected`). `dialbench
metaeval`'s own code then correlates each with the humans' mean breakdown label (X < T < O as
ordinal 0 < 1 < 2; O = 1, T = 0.5, X = 0 is the same up to scale, so the same r), with a 95%
interval from the bootstrap over dialogues. Calls are cached in the run (default
runs/expected_scoring), so a second run prints the same figures at once.
Usage: .venv/bin/python benchmarks/expected_scoring.py [--run DIR] [--dialogues 10] [--limits 6 6]
  [--threads 1] [--write]
  --write: also write the figures to the package's judge_figures.yaml (`dialbench models`).
"""

from __future__ import annotations

import argparse
import os
import time
from collections import defaultdict
from pathlib import Path

from _dbdc3_subset import prepare

from dialbench import Dialogue, Judgment, RunStore
from dialbench.judge.api import judge
from dialbench.judge.config import JudgeConfig
from dialbench.judge.judging import select_dialogues
from dialbench.judge.protocols.submetrics import SubmetricsProtocol
from dialbench.llm.measured import FIGURES_FILE, JudgeFigure, MeasuredJudges, write_figures
from dialbench.llm.specs import ModelConfig
from dialbench.metaeval.config import MetaEvalOptions, ScaleSpec
from dialbench.metaeval.correlation import CorrelationRow
from dialbench.metaeval.evaluate import meta_evaluate
from dialbench.ratings import JudgeNames, from_store, item_target

JUDGES = ("local:qwen2.5-0.5b", "local:qwen2.5-1.5b")
LIMITS = (6, 6)  # dialogues judged per language, per judge (the 1.5B's calls take longer)
SCORINGS = ("argmax", "expected")
LANGUAGES = ("en", "ja", "all")
DOMAIN = "chit-chat"  # DBDC3's dialogues: open-domain chat with a chatbot


def judge_all(run: Path, threads: int, limits: list[int]) -> None:
    for spec, limit in zip(JUDGES, limits, strict=True):
        for scoring in SCORINGS:
            config = JudgeConfig(
                protocol="submetrics",
                options={"dimensions": "sensibleness", "scoring": scoring},
                judges=[ModelConfig(spec=spec, n_threads=threads)],
                limit=limit,
            )
            started = time.perf_counter()
            summary = judge(config, run, quiet=True)
            tally = summary.judges[0]
            reason = tally.failures.first_reason
            print(
                f"{spec} scoring={scoring}: {tally.judgments} turns, {tally.ok} judged now, "
                f"{tally.already_ok} stored, {tally.unscored} unscored, "
                f"{time.perf_counter() - started:.0f} s (load average "
                f"{os.getloadavg()[0]:.1f}){': ' + reason if reason else ''}",
                flush=True,
            )


def judged(store: RunStore, limit: int) -> set[str]:
    """The dialogues the judge stage selects under `limit`: the figures rest on these alone, so
    every judge and scoring is measured on the same turns (a run judged further keeps more)."""
    protocol = SubmetricsProtocol()
    return {d.id for d in select_dialogues(store, limit=limit, protocol=protocol)}


def scorings(judgments: list[Judgment]) -> dict[str, tuple[str, str]]:
    """Each rater name metaeval gives a judge -> (model spec, scoring)."""
    names = JudgeNames(judgments)
    return {names(j): (j.judge_model, _scoring(j)) for j in judgments}


def _scoring(judgment: Judgment) -> str:
    options = judgment.configuration.options if judgment.configuration else {}
    return str(options.get("scoring", "argmax"))


def unscored_rates(
    judgments: list[Judgment], languages: dict[str, str]
) -> dict[tuple[str, str, str], float]:
    """(spec, scoring, language) -> the share of judgments unscored."""
    counts: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0])
    for j in judgments:
        for language in (languages[j.target.dialogue_id], "all"):
            counts[(j.judge_model, _scoring(j), language)][0] += j.parse_status == "unscored"
            counts[(j.judge_model, _scoring(j), language)][1] += 1
    return {key: bad / total for key, (bad, total) in counts.items()}


def _rounded(value: float | None) -> float | None:
    """Three decimals: what the figures file keeps, so every table prints the same figure."""
    return None if value is None else round(value, 3)


def figures(run: Path, limits: list[int]) -> tuple[MeasuredJudges, list[CorrelationRow]]:
    """`dialbench metaeval RUN --protocol submetrics --pair breakdown=sensibleness --scale
    breakdown=ordinal:X,T,O`, each judge on the turns of the dialogues it was asked to judge;
    and the human ceiling on the judges' turns (Pearson)."""
    with RunStore.open(run, create=False) as store:
        keep = {spec: judged(store, limit) for spec, limit in zip(JUDGES, limits, strict=True)}
        languages = {d.id: d.language for d in store.records(Dialogue)}
        ratings, judgments = from_store(store, "submetrics")
    judgments = [j for j in judgments if j.target.dialogue_id in keep[j.judge_model]]
    raters = scorings(judgments)
    shown = set().union(*keep.values())
    ratings = [
        r.model_copy(update={"dimension": "breakdown"})
        if r.kind == "judge" and r.dimension == "sensibleness"
        else r
        for r in ratings
        if item_target(r.item_id).dialogue_id
        in (keep[raters[r.rater][0]] if r.kind == "judge" else shown)
    ]
    options = MetaEvalOptions(
        scales={"breakdown": ScaleSpec(scale="ordinal", order=["X", "T", "O"])}
    )
    report = meta_evaluate(ratings, judgments, options)
    unscored = unscored_rates(judgments, languages)
    rows: dict[tuple[str, str], dict[str, CorrelationRow]] = defaultdict(dict)
    for row in report.correlation:
        if row.dimension == "breakdown" and row.rater in raters:
            rows[(row.rater, row.language)][row.method] = row
    measured: dict[str, list[JudgeFigure]] = defaultdict(list)
    for rater, (spec, scoring) in sorted(raters.items(), key=lambda r: (r[1], r[0])):
        for language in LANGUAGES:
            methods = rows.get((rater, language))
            if not methods:
                continue
            pearson, spearman = methods["pearson"], methods["spearman"]
            measured[spec].append(
                JudgeFigure(
                    language=language,
                    scoring=scoring,
                    n_items=pearson.n_items,
                    n_dialogues=pearson.n_dialogues,
                    pearson=_rounded(pearson.r),
                    pearson_ci=(_rounded(pearson.ci_low), _rounded(pearson.ci_high)),
                    spearman=_rounded(spearman.r),
                    spearman_ci=(_rounded(spearman.ci_low), _rounded(spearman.ci_high)),
                    unscored=round(unscored.get((spec, scoring, language), 0.0), 3),
                )
            )
    ceiling = [
        row
        for row in report.correlation
        if row.dimension == "breakdown"
        and row.rater.startswith("human")
        and row.method == "pearson"
    ]
    return MeasuredJudges(domain=DOMAIN, models=dict(measured)), ceiling


def _figure(value: float | None, interval: tuple[float | None, float | None]) -> str:
    if value is None:
        return "–"
    low, high = interval
    shown = f"{value:.2f}" + (
        f" [{low:.2f}, {high:.2f}]" if low is not None and high is not None else ""
    )
    return shown.replace("-", "−")


def tables(measured: MeasuredJudges, ceiling: list[CorrelationRow]) -> str:
    """Every figure, one row per judge, scoring and language; then Pearson r alone, en / ja."""
    lines = [
        "| judge | scoring | language | turns (dialogues) | Pearson r [95% CI] | "
        "Spearman ρ [95% CI] | unscored |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    short = ["| judge | scoring | Pearson r en | Pearson r ja |", "| --- | --- | --- | --- |"]
    for spec, figures in measured.models.items():
        by = {(f.scoring, f.language): f for f in figures}
        for f in figures:
            lines.append(
                f"| {spec} | {f.scoring} | {f.language} | {f.n_items} ({f.n_dialogues}) | "
                f"{_figure(f.pearson, f.pearson_ci)} | {_figure(f.spearman, f.spearman_ci)} | "
                f"{f.unscored:.0%} |"
            )
        for scoring in SCORINGS:
            cells = [by.get((scoring, language)) for language in ("en", "ja")]
            shown = [_figure(c.pearson, c.pearson_ci) if c else "–" for c in cells]
            short.append(f"| {spec} | {scoring} | {' | '.join(shown)} |")
    for row in ceiling:
        lines.append(
            f"| {row.rater} | – | {row.language} | {row.n_items} ({row.n_dialogues}) | "
            f"{_figure(row.r, (row.ci_low, row.ci_high))} | – | – |"
        )
    by_language = {row.language: row for row in ceiling}
    cells = [by_language.get(language) for language in ("en", "ja")]
    shown = [_figure(c.r, (c.ci_low, c.ci_high)) if c else "–" for c in cells]
    short.append(f"| human (ceiling) | – | {' | '.join(shown)} |")
    return "\n".join([*lines, "", *short])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--run", type=Path, default=Path("runs/expected_scoring"))
    parser.add_argument("--dialogues", type=int, default=10, help="imported, per language")
    parser.add_argument(
        "--limits", type=int, nargs=2, default=list(LIMITS), help="judged per language, per judge"
    )
    parser.add_argument(
        "--threads", type=int, default=1, help="llama.cpp threads (1 on cores shared with others)"
    )
    parser.add_argument("--write", action="store_true", help=f"write {FIGURES_FILE}")
    arguments = parser.parse_args()
    prepare(arguments.run, arguments.dialogues)
    judge_all(arguments.run, arguments.threads, arguments.limits)
    measured, ceiling = figures(arguments.run, arguments.limits)
    print(tables(measured, ceiling), end="\n\n")
    print(write_figures(measured, write=arguments.write))


if __name__ == "__main__":
    main()
