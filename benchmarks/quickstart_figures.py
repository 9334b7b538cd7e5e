"""Every figure the README gives of the quickstart's output, printed from the run it wrote.

The validator's acceptance and how the simulated dialogues ended (`dialbench stats --source
medal`), how many judgments parsed, each chatbot's mean overall score and DiQAD quality over all
languages with its interval over seeds, and how many of the report's differences between the
chatbots hold (`report/tables/chatbot_differences.csv`), and the judges against the DBDC3 humans
as the README's table:
Pearson r with the mean human score and F1 of breakdown (X), per language and over both, each with
its 95% interval, beside the human ceiling on the same items (from `RUN/metaeval/report.json`,
written by the pipeline's `metaeval` stage). `dialbench show RUN` names the processor and the
llama.cpp kernels that computed them (`dialbench.machine`): the local models' output depends on
those.
Usage: .venv/bin/python benchmarks/quickstart_figures.py [RUN]   (default: runs/quickstart)
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from dialbench.analysis.dataset_stats import dataset_statistics
from dialbench.figures.differences import chatbot_differences
from dialbench.figures.intervals import chatbot_intervals
from dialbench.figures.observations import observations
from dialbench.figures.run_reads import RunReads
from dialbench.metaeval.evaluate import MetaEvalTables
from dialbench.schema import ALL_LANGUAGES, Judgment
from dialbench.store import RunStore

LANGUAGES = ("en", "ja", "all")


def _figure(value: float | None, low: float | None, high: float | None) -> str:
    if value is None:
        return "–"
    shown = f"{value:.2f}".replace("-", "−")
    if low is None or high is None:
        return shown
    return f"{shown} [{low:.2f}, {high:.2f}]".replace("-", "−")


def simulation_and_judging(run: Path) -> None:
    with RunStore.open(run, create=False) as store:
        stats = dataset_statistics(store, "medal")
        judgments = list(store.records(Judgment))
    attempts = sum(a.attempts for a in stats.acceptance)
    accepted = sum(round(a.acceptance_rate * a.attempts) for a in stats.acceptance)
    print(f"validator: accepted {accepted / attempts:.0%} of {attempts} user attempts")
    ended = next(r for r in stats.languages if r.language == "all").end_reasons
    total = sum(ended.values())
    print(
        f"simulated dialogues: {total}, ended: " + ", ".join(f"{n} {k}" for k, n in ended.items())
    )
    status = Counter(j.parse_status for j in judgments)
    print(f"judgments: {len(judgments)}, {status['unscored'] / len(judgments):.0%} unscored")


def chatbot_figures(run: Path) -> None:
    with RunStore.open(run, create=False) as store:
        reads = RunReads(store)
        found = observations(reads.frame, reads)
    figures = chatbot_intervals(found)
    shown = figures[
        figures["dimension"].isin(["overall", "quality"]) & (figures["language"] == ALL_LANGUAGES)
    ]
    for row in shown.itertuples(index=False):
        print(
            f"{row.protocol} {row.dimension}, {row.chatbot}, all languages: "
            f"{_figure(row.value, row.low, row.high)} ({row.units} seeds)"
        )
    differences = chatbot_differences(found)
    tested = int(differences["p_value"].notna().sum())
    print(
        f"differences between the chatbots: {len(differences)} compared, {tested} tested, "
        f"{int(differences['holds'].sum())} hold"
    )


def judges_against_humans(run: Path) -> None:
    report = MetaEvalTables.model_validate_json(
        (run / "metaeval" / "report.json").read_text(encoding="utf-8")
    )
    pearson = {
        (c.rater, c.language): c
        for c in report.correlation
        if c.method == "pearson" and c.dimension == "breakdown"
    }
    f1 = {(d.rater, d.language): d for d in report.detection if d.dimension == "breakdown=X"}
    raters = list(dict.fromkeys(rater for rater, _ in pearson))
    items = {c.language: (c.n_items, c.n_dialogues) for c in pearson.values()}
    print(
        "\nitems (dialogues) per language: "
        + ", ".join(f"{language} {n} ({d})" for language, (n, d) in items.items())
    )
    print("\n| rater | Pearson r en / ja / all | F1 of breakdown (X) en / ja / all |")
    print("| --- | --- | --- |")
    for rater in raters:
        r = [pearson.get((rater, language)) for language in LANGUAGES]
        d = [f1.get((rater, language)) for language in LANGUAGES]
        correlations = " / ".join(_figure(c.r, c.ci_low, c.ci_high) if c else "–" for c in r)
        detections = " / ".join(
            _figure(x.f1_positive, x.f1_positive_low, x.f1_positive_high) if x else "–" for x in d
        )
        print(f"| {rater} | {correlations} | {detections} |")


def main() -> None:
    run = Path(sys.argv[1] if len(sys.argv) > 1 else "runs/quickstart")
    simulation_and_judging(run)
    chatbot_figures(run)
    judges_against_humans(run)


if __name__ == "__main__":
    main()
