"""`dialbench audit`: a probability sample of judged dialogues for human labels, which correct
the chatbots' figures (docs/corrected.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from dialbench.cli.app import app
from dialbench.cli.options import DEFAULT_RUN, RunDir
from dialbench.cli.terminal_tables import table

audit_app = typer.Typer(
    help="Probability samples of judged dialogues for human labels that correct the figures.",
    no_args_is_help=True,
)
app.add_typer(audit_app, name="audit")
console = Console()


@audit_app.command("draw")
def draw_command(
    run: RunDir = DEFAULT_RUN,
    name: Annotated[str, typer.Option("--name", "-n", help="The sample's name.")] = "audit",
    per_cell: Annotated[
        int, typer.Option(min=1, help="Dialogues drawn per language x chatbot.")
    ] = 30,
    oversample_flagged: Annotated[
        float,
        typer.Option(min=1.0, help="A dialogue the judge flagged is this many times as likely."),
    ] = 1.0,
    judge: Annotated[
        str | None, typer.Option("--judge", "-j", help="Whose flags to oversample (its name).")
    ] = None,
    protocol: Annotated[str, typer.Option(help="The judge's protocol.")] = "issues",
    language: Annotated[list[str], typer.Option(help="Only these languages; repeatable.")] = [],  # noqa: B006  (typer reads defaults, never mutates them)
    seed: Annotated[int, typer.Option(help="Seed of the sampling RNG.")] = 0,
) -> None:
    """Draw a stratified random sample of the judged chatbot dialogues (language x chatbot,
    flagged ones oversampled if asked), each with its inclusion probability; same arguments,
    same sample. Writes RUN/benchmarks/NAME/benchmark.jsonl for annotators."""
    from dialbench.curate.audit_sample import AuditConfig, draw_audit_sample

    config = AuditConfig(
        name=name,
        per_cell=per_cell,
        oversample_flagged=oversample_flagged,
        judge=judge,
        protocol=protocol,
        languages=language,
        seed=seed,
    )
    result = draw_audit_sample(config, run)
    design = result.benchmark.design
    assert design is not None
    rows = [
        (s.name, str(s.population), str(s.sampled), f"{s.sampled / s.population:.3f}")
        for s in design.strata
    ]
    console.print(
        table(
            f"Audit sample {name} ({result.status})",
            ("stratum", "population", "sampled", "π"),
            rows,
            text={"stratum"},
        )
    )
    console.print(
        f"{len(result.benchmark.items)} dialogues in {result.file}; label them in the app "
        f"(dialbench annotate add NAME --benchmark {name} ...) or import labels "
        "(dialbench annotate import FILE)",
        markup=False,
        highlight=False,
    )


@audit_app.command("status")
def status_command(run: RunDir = DEFAULT_RUN) -> None:
    """Per audit sample and stratum: dialogues drawn and labelled so far."""
    from dialbench.curate.audit_sample import audit_samples
    from dialbench.ratings import placed_annotations
    from dialbench.store import RunStore

    with RunStore.open(run, create=False) as store:
        samples = audit_samples(store)
        labelled = {
            a.target.dialogue_id for a, _ in placed_annotations(store) if a.review_of is None
        }
    if not samples:
        console.print(f"no audit sample in {run}: dialbench audit draw", markup=False)
        return
    rows = []
    for sample in samples:
        by_stratum: dict[str, list[str]] = {}
        for item in sample.items:
            by_stratum.setdefault(str(item.stratum), []).append(item.dialogue_id)
        rows += [
            (sample.name, stratum, str(len(ids)), str(sum(i in labelled for i in ids)))
            for stratum, ids in by_stratum.items()
        ]
    console.print(
        table(
            "Audit samples",
            ("sample", "stratum", "drawn", "labelled"),
            rows,
            text={"sample", "stratum"},
        )
    )


@audit_app.command("plan")
def plan_command(
    width: Annotated[float, typer.Option(min=0.0, help="The full 95% interval width wanted.")],
    correlation: Annotated[
        float | None,
        typer.Option(min=-1.0, max=1.0, help="The judge-human correlation, stated (metaeval's)."),
    ] = None,
    pilot: Annotated[
        Path | None,
        typer.Option(help="A run whose audit sample is labelled: its correlations, per language."),
    ] = None,
    sd: Annotated[
        float,
        typer.Option(
            min=0.0, help="With --correlation: the labels' spread (0.5 at most for a rate)."
        ),
    ] = 0.5,
    population: Annotated[
        int,
        typer.Option(min=1, help="With --correlation: judged dialogues per language x chatbot."),
    ] = 1000,
) -> None:
    """How many labels per language x chatbot a corrected figure's interval of WIDTH needs,
    given the judge's correlation with humans: stated, or measured on a pilot's labels, per
    dimension and language (a floor: seeds widen real intervals)."""
    from dialbench.errors import DialbenchError
    from dialbench.figures.label_plan import labels_needed

    if (correlation is None) == (pilot is None):
        raise DialbenchError("give --correlation or --pilot RUN, one of them")
    if pilot is not None:
        _pilot_plan(pilot, width)
        return

    def said(labels: int | None) -> str:
        return "more than every dialogue" if labels is None else f"{labels}"

    assert correlation is not None
    needed = labels_needed(width, sd, correlation, population)
    alone = labels_needed(width, sd, 0.0, population)
    print(
        f"{said(needed)} labels per language x chatbot (of {population} judged) for a 95% "
        f"interval {width:g} wide at correlation {correlation:g}; {said(alone)} with the "
        "labels alone"
    )


def _pilot_plan(pilot: Path, width: float) -> None:
    import pandas as pd

    from dialbench.errors import DialbenchError
    from dialbench.figures.label_plan import pilot_plan
    from dialbench.figures.labelled_observations import labelled_observations
    from dialbench.figures.observations import observations
    from dialbench.figures.run_reads import RunReads
    from dialbench.store import RunStore

    with RunStore.open(pilot, create=False) as store:
        run = RunReads(store)
        found = labelled_observations(observations(run.frame, run), store)
    plan = pilot_plan(found.frame, width)
    if plan.empty:
        raise DialbenchError(f"{pilot}: no labelled audit items to plan from ({found.note})")
    rows = [
        (
            str(r["dimension"]),
            str(r["language"]),
            str(r["pilot_labels"]),
            f"{r['correlation']:.2f}",
            f"{r['sd']:.2f}",
            str(r["population"]),
            "more than all" if pd.isna(r["labels_needed"]) else str(int(r["labels_needed"])),
        )
        for r in plan.to_dict("records")
    ]
    columns = ("dimension", "language", "pilot labels", "ρ", "sd", "judged", "labels needed")
    console.print(
        table(
            f"Labels per chatbot for a 95% interval {width:g} wide", columns, rows, text=columns[:2]
        )
    )
