"""`dialbench metric`: train a cheap turn-level metric once, then score runs like a judge."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from dialbench.cli import app
from dialbench.cli.tables import figure, table
from dialbench.schema import ROLES, Annotation
from dialbench.store import RunStore

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
    from dialbench.metrics.config import load_config
    from dialbench.metrics.train import train_metric

    loaded = load_config(config)
    folder = output or Path("models") / loaded.name
    info = train_metric(loaded, folder)
    console.print(
        table(
            f"{info.judge_model}: held-out dialogues vs. humans",
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
    model: Annotated[Path, typer.Argument(help="Model directory written by `metric train`.")],
    run: Annotated[Path, typer.Argument(help="Run directory whose turns to score.")],
    role: Annotated[
        list[str], typer.Option(help="Score turns of this role (repeat for both).")
    ] = DEFAULT_ROLES,
    language: Annotated[
        list[str], typer.Option(help="Only dialogues in this language (repeatable).")
    ] = [],  # noqa: B006
    heldout_only: Annotated[
        bool, typer.Option(help="Only the dialogues held out from training (honest figures).")
    ] = False,
    workers: Annotated[
        int, typer.Option(min=1, help="Encoder processes (one per CPU core is fastest).")
    ] = 1,
    human_labels: Annotated[
        bool,
        typer.Option(
            help="Also store the human labels the metric learned from on its dimension, "
            "for `dialbench metaeval RUN --protocol metric:NAME`."
        ),
    ] = False,
) -> None:
    """Write one Judgment per turn (protocol metric:NAME), as an LLM judge does."""
    from dialbench.errors import DialbenchError
    from dialbench.metrics.model import load_model
    from dialbench.metrics.score import human_scores, score_run

    unknown = sorted(set(role) - set(ROLES))
    if unknown:
        raise DialbenchError(f"--role {unknown[0]!r}: choose from {', '.join(ROLES)}")
    loaded = load_model(model)
    info = loaded.info
    with RunStore.open(run, create=False) as store:
        config = {"model": str(model), "version": info.version, "roles": role}
        with store.run(f"metric score {info.name}", config) as record:
            summary = score_run(
                loaded,
                store,
                record,
                roles=role,
                heldout_only=heldout_only,
                languages=language,
                workers=workers,
            )
            if human_labels:
                derived = human_scores(loaded, store.records(Annotation))
                store.add(derived, record, on_conflict="replace")
                console.print(f"{len(derived)} human label(s) on {info.dimension}")
    console.print(
        f"{info.judge_model}: {summary.judgments} turn(s) in {summary.dialogues} dialogue(s), "
        f"{summary.turns_per_second:.0f} turns/s",
        highlight=False,
    )
    for lang, count in sorted(summary.no_head.items()):
        console.print(f"{count} {lang} turn(s) not scored: no head for {lang}", highlight=False)
