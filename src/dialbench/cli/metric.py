"""`dialbench metric`: train a cheap turn-level metric once, then score runs like a judge."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from dialbench.cli.app import app
from dialbench.cli.terminal_tables import figure, table
from dialbench.domains import DOMAINS, never_measured_line
from dialbench.errors import DialbenchError
from dialbench.metrics.config import TurnsToScore
from dialbench.metrics.diqad import DIQAD_CLASSIFIERS
from dialbench.metrics.diqad.config import DEFAULT_CLASSIFIERS, DiqadTrainConfig
from dialbench.metrics.packaged import (
    LABELS,
    CardFigure,
    Labels,
    MetricCard,
    packaged_metrics,
    unmeasured_domains,
)
from dialbench.schema import SPEAKERS
from dialbench.store import RunStore

if TYPE_CHECKING:
    from dialbench.metrics.diqad.train import DiqadTrainResult
    from dialbench.metrics.saved_metric import MetricInfo

console = Console()
DEFAULT_ROLES = ["assistant"]  # typer reads option defaults, never mutates them
metric_app = typer.Typer(
    name="metric",
    help="Trained turn-level metrics (frozen multilingual encoder + small head).",
    no_args_is_help=True,
)
app.add_typer(metric_app)


@metric_app.command()
def train(
    config: Annotated[Path, typer.Argument(help="Training config (YAML).")],
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Model directory. Default: models/NAME.")
    ] = None,
) -> None:
    """Train a metric on the runs named in CONFIG; write a versioned model directory."""
    from dialbench.yaml_config import require_config_file

    require_config_file(config)  # before torch and the metric's modules load
    from dialbench.metrics.config import load_config
    from dialbench.metrics.train import train_metric

    loaded = load_config(config)
    folder = output or Path("models") / loaded.name
    info = train_metric(loaded, folder)
    console.print(
        table(
            f"{info.judge_model} on held-out dialogues, against {loaded.held_out_truth}",
            ("language", "items", "dialogues", "Pearson", "Spearman"),
            (
                (
                    d.language,
                    str(d.n_items),
                    str(d.n_dialogues),
                    figure(d.pearson, 3),
                    figure(d.spearman, 3),
                )
                for d in info.dev
            ),
            text=("language",),
        )
    )
    trained = ", ".join(f"{lang} {n}" for lang, n in sorted(info.n_train.items()))
    console.print(
        f"trained on {trained} examples in {info.train_seconds:.1f} s; wrote {folder}",
        highlight=False,
    )


@metric_app.command()
def score(
    model: Annotated[
        Path,
        typer.Argument(
            help="Model directory written by `metric train`, or a packaged metric's name "
            "(`dialbench metric list`); a directory of that name wins."
        ),
    ],
    run: Annotated[Path, typer.Argument(help="Run directory whose turns to score.")],
    role: Annotated[
        list[str], typer.Option(help="Score turns of this role (repeat for both).")
    ] = DEFAULT_ROLES,
    turns: Annotated[
        TurnsToScore,
        typer.Option(help="all: every turn of those roles; last: each dialogue's last one."),
    ] = "all",
    language: Annotated[
        list[str], typer.Option(help="Only dialogues in this language (repeatable).")
    ] = [],  # noqa: B006
    heldout_only: Annotated[
        bool, typer.Option(help="Only the dialogues held out from training (honest figures).")
    ] = False,
    workers: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Encoder processes. Default: one per core from 10,000 turns to score, else "
            "one (on cores busy with other jobs, one is faster).",
        ),
    ] = None,
    human_labels: Annotated[
        bool,
        typer.Option(
            help="Also store the human labels the metric learned from on its dimension, "
            "for `dialbench metaeval RUN --protocol metric:NAME`."
        ),
    ] = False,
) -> None:
    """Write one Judgment per turn (protocol metric:NAME), as an LLM judge does."""
    from dialbench.metrics.api import score_metric
    from dialbench.metrics.config import MetricScoreConfig

    unknown = sorted(set(role) - set(SPEAKERS))
    if unknown:
        raise DialbenchError(f"--role {unknown[0]!r}: choose from {', '.join(SPEAKERS)}")
    config = MetricScoreConfig(
        model=model,
        roles=role,
        turns=turns,
        languages=language,
        heldout_only=heldout_only,
        human_labels=human_labels,
        workers=workers,
    )
    result = score_metric(config, run)
    if human_labels:
        console.print(f"{result.human_labels} human label(s) on {result.dimension}")
    console.print(
        f"{result.judge_model}: {result.judgments} turn(s) in {result.dialogues} dialogue(s), "
        f"{result.turns_per_second:.0f} turns/s",
        highlight=False,
    )
    for lang, count in sorted(result.no_head.items()):
        console.print(f"{count} {lang} turn(s) not scored: no head for {lang}", highlight=False)


@metric_app.command("list")
def list_metrics() -> None:
    """The metrics that ship trained with dialbench, with their held-out figures per domain and
    language (Pearson against human labels; AUROC of real vs broken replies)."""
    for info, card in packaged_metrics():
        console.print(
            f"{info.name}: dimension {info.dimension}, encoder {info.encoder.name} "
            f"{info.encoder.version}, version {info.version}",
            highlight=False,
        )
        console.print(f"  trained on: {'; '.join(card.data)}", highlight=False)
        print_card_figures(info, card)


def print_card_figures(info: MetricInfo, card: MetricCard) -> None:
    """A packaged metric's held-out figures, a table per domain measured, then its notes."""
    for domain, about in DOMAINS.items():
        figures = [f for f in card.figures if f.domain == domain]
        if not figures:
            continue
        console.print(
            table(
                f"{info.judge_model} on {domain} ({about}), held out from training",
                ("evaluation", "labels", "language", "measure", "value", "items", "dialogues"),
                _figure_rows(figures),
                text=("evaluation", "labels", "language", "measure"),
                compact=True,
            )
        )
    print_card_notes(card)


def print_card_notes(card: MetricCard) -> None:
    """What each kind of labels in the card's figures is, then the domains none measured."""
    for labels in dict.fromkeys(f.labels for f in card.figures):
        console.print(f"  {LABELS_SHOWN[labels]}: {LABELS[labels]}", highlight=False)
    never = never_measured_line(unmeasured_domains(card))
    if never:
        console.print(f"  {never}", highlight=False)


def metrics_summary(metrics: list[tuple[MetricInfo, MetricCard]]) -> Table:
    """The packaged metrics in one compact table: per domain, kind of labels and measure, the
    languages measured and the range of their figures (every figure: `metric list`)."""
    rows = []
    for info, card in metrics:
        groups: dict[tuple[str, Labels, str], list[CardFigure]] = {}
        for f in sorted(card.figures, key=lambda f: list(DOMAINS).index(f.domain)):
            groups.setdefault((f.domain, f.labels, f.measure), []).append(f)
        for index, ((domain, labels, measure), figures) in enumerate(groups.items()):
            values = [f.value for f in figures if f.value is not None]
            low, high = (figure(min(values), 3), figure(max(values), 3)) if values else ("-", "-")
            rows.append(
                (
                    "" if index else info.name,
                    domain,
                    LABELS_SHOWN[labels],
                    MEASURES[measure],
                    " ".join(dict.fromkeys(f.language for f in figures)),
                    low if low == high else f"{low}–{high}",
                )
            )
    return table(
        "The packaged trained metrics, held out from training (each figure: dialbench metric list)",
        ("metric", "domain", "labels", "measure", "languages", "value"),
        rows,
        text=("metric", "domain", "labels", "measure", "languages"),
        compact=True,
    )


def _figure_rows(figures: list[CardFigure]) -> list[tuple[str, ...]]:
    """One row per figure; an evaluation is named on its first row only."""
    rows: list[tuple[str, ...]] = []
    named = None
    for f in figures:
        evaluation = "" if f.evaluation == named else f.evaluation
        named = f.evaluation
        rows.append(
            (
                evaluation,
                LABELS_SHOWN[f.labels],
                f.language,
                MEASURES[f.measure],
                figure(f.value, 3),
                str(f.n_items),
                str(f.n_dialogues),
            )
        )
    return rows


MEASURES = {"pearson": "Pearson", "auroc": "AUROC"}
LABELS_SHOWN: dict[Labels, str] = {
    "human": "human",
    "machine-translated human": "MT",
    "constructed": "proxy",
}

diqad_app = typer.Typer(
    name="diqad",
    help="DiQAD's 0/1/2 dialogue-quality classifiers: baselines, cross-domain, sentiment shift.",
    no_args_is_help=True,
)
metric_app.add_typer(diqad_app)
DIQAD_DEFAULTS = list(DEFAULT_CLASSIFIERS)


@diqad_app.command("train")
def diqad_train(
    data: Annotated[
        Path,
        typer.Argument(
            help="A run directory (labels from dialogue annotations, or a judge's with "
            "--protocol), or a dialogue file whose dialogues carry the label in metadata."
        ),
    ],
    label: Annotated[str, typer.Option(help="The 0/1/2 label's name.")] = "quality",
    protocol: Annotated[
        str | None, typer.Option(help="Labels from this judge protocol's judgments.")
    ] = None,
    domain: Annotated[
        str, typer.Option(help="What a domain is: 'source' or a metadata key.")
    ] = "source",
    classifier: Annotated[
        list[str], typer.Option(help=f"One of {', '.join(DIQAD_CLASSIFIERS)} (repeatable).")
    ] = DIQAD_DEFAULTS,
    holdout: Annotated[float, typer.Option(min=0.01, max=0.99)] = 0.2,
    seed: int = 0,
    save: Annotated[
        Path | None, typer.Option(help="Save the (single) classifier to this directory.")
    ] = None,
    name: Annotated[str, typer.Option(help="Saved as protocol metric:NAME.")] = "diqad",
) -> None:
    """Train and test classifiers on held-out dialogues, per left-out domain, and with a
    positive or negative user reaction appended."""
    from dialbench.metrics.diqad.train import train_diqad  # scikit-learn

    config = DiqadTrainConfig(
        label=label,
        protocol=protocol,
        domain=domain,
        classifiers=classifier,
        holdout=holdout,
        seed=seed,
        save=save,
        metric_name=name,
    )
    print_diqad_training(train_diqad(config, data))


def print_diqad_training(result: DiqadTrainResult) -> None:
    """The data, then three tables (held-out figures, each domain left out, the sentiment
    shift) and where the classifier was saved: for the command and the pipeline's stage."""
    counts = ", ".join(f"{y}: {n}" for y, n in result.labels.items())
    console.print(
        f"{result.dialogues} dialogues ({counts}); {result.heldout} held out; "
        f"{result.domains} domain(s)",
        highlight=False,
    )
    reports = result.reports
    shown = ("accuracy", "uar", "kappa", "spearman", "pearson", "f1")
    console.print(
        table(
            "held-out dialogues",
            ("classifier", *shown, "fit s"),
            (
                (r.classifier, *(figure(r.heldout[k], 3) for k in shown), figure(r.seconds, 1))
                for r in reports
            ),
            text=("classifier",),
        )
    )
    if any(r.cross_domain for r in reports):
        console.print(
            table(
                "trained without a domain, tested on it (accuracy / UAR)",
                ("domain", *(r.classifier for r in reports)),
                (
                    (
                        key,
                        *(
                            f"{figure(r.cross_domain[key]['accuracy'], 3)} / "
                            f"{figure(r.cross_domain[key]['uar'], 3)}"
                            for r in reports
                        ),
                    )
                    for key in sorted(reports[0].cross_domain)
                ),
                text=("domain",),
            )
        )
    console.print(
        table(
            "mean predicted quality of the held-out dialogues, with a user reaction appended",
            ("classifier", "original", "positive", "negative"),
            (
                (r.classifier, *(figure(r.sentiment[k], 3) for k in ("original", "pos", "neg")))
                for r in reports
            ),
            text=("classifier",),
        )
    )
    if result.saved is not None:
        console.print(f"saved {result.saved.judge_model} to {result.saved_to}", highlight=False)


@diqad_app.command("score")
def diqad_score(
    model: Annotated[Path, typer.Argument(help="Directory saved by `metric diqad train --save`.")],
    run: Annotated[Path, typer.Argument(help="Run directory whose dialogues to judge.")],
    heldout_only: Annotated[
        bool, typer.Option(help="Only the dialogues held out from training.")
    ] = False,
) -> None:
    """Write one 0/1/2 Judgment per dialogue (protocol metric:NAME)."""
    from dialbench.metrics.diqad.saved_classifier import load_classifier, score_dialogues
    from dialbench.schema import Dialogue

    info, classifier = load_classifier(model)
    held = set(info.heldout_dialogues)
    with RunStore.open(run, create=False) as store:
        dialogues = [d for d in store.records(Dialogue) if not heldout_only or d.id in held]
        config = {"model": str(model), "version": info.version}
        with store.invocation(f"metric diqad score {info.name}", config) as record:
            judgments = score_dialogues(info, classifier, dialogues, record)
            store.add(judgments, record, on_conflict="replace")
    console.print(
        f"{info.judge_model}: {len(judgments)} dialogue(s) judged on {info.dimension}",
        highlight=False,
    )
