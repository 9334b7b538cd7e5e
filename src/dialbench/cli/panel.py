"""`dialbench panel`: several judges' judgments of one protocol as one rater's, stored beside
theirs as the judge `panel:NAME`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from dialbench.cli.app import app
from dialbench.cli.options import DEFAULT_RUN, RunDir
from dialbench.cli.terminal_tables import figure, table
from dialbench.schema import PanelMethod

if TYPE_CHECKING:
    from dialbench.panel.api import PanelResult

console = Console()


def print_panel_output(done: PanelResult) -> None:
    for warning in done.family_warnings:
        console.print(f"warning: {warning}", markup=False, soft_wrap=True)
    console.print(
        table(
            f"Agreement among the members of {done.judge_model} ({', '.join(done.members)}), "
            "before they are combined",
            ("dimension", "lang", "scale", "alpha", "mean kappa", "items", "members"),
            (
                (
                    row.dimension,
                    row.language,
                    row.scale,
                    figure(row.alpha, 2),
                    figure(row.mean_pairwise_kappa, 2),
                    str(row.n_items),
                    str(row.n_members),
                )
                for row in done.agreement
            ),
            text=("dimension", "lang", "scale"),
            compact=True,
        )
    )
    for language, dimensions in sorted(done.settings.weights.items()):
        for dimension, weights in sorted(dimensions.items()):
            shown = ", ".join(f"{member} {weight:.2f}" for member, weight in weights.items())
            console.print(f"weights {language} {dimension}: {shown}", markup=False, soft_wrap=True)
    for note in done.notes:
        console.print(f"note: {note}", markup=False, soft_wrap=True)
    stored = done.stored
    console.print(
        f"{done.judge_model} ({done.settings.method}, protocol {done.protocol}): {done.judged} "
        f"judged, {done.failed} failed (fewer than half the members answered); judgments "
        f"{stored.added} added, {stored.unchanged} unchanged, {stored.replaced} replaced; "
        f"agreement written to {done.agreement_file}",
        markup=False,
        soft_wrap=True,
    )


@app.command()
def panel(
    run: RunDir = DEFAULT_RUN,
    name: Annotated[str, typer.Option(help="The panel's judgments are by `panel:NAME`.")] = "",
    protocol: Annotated[
        str | None, typer.Option(help="The members' protocol; default: the run's one.")
    ] = None,
    judge: Annotated[
        list[str],
        typer.Option(
            "--judge",
            "-j",
            help="A member: SPEC, or 'SPEC \\[c-…]' for one configuration; two or more.",
        ),
    ] = [],  # noqa: B006  (typer reads defaults, never mutates them)
    method: Annotated[
        PanelMethod,
        typer.Option(
            help="majority: the most common value; median: labels by majority, ordinal scores "
            "by the median, interval ones by the mean; weighted: as median, each vote weighted "
            "by its member's agreement with the humans in the item's language."
        ),
    ] = "median",
) -> None:
    """Several judges of one protocol as one rater, `panel:NAME`: by majority, median, or a vote
    weighted by each judge's agreement with the humans per language; prints the judges'
    agreement per language and warns where a judge shares a model family with a chatbot."""
    from dialbench.errors import DialbenchError
    from dialbench.panel.api import panel as make_panel
    from dialbench.panel.config import PanelConfig

    if not name or len(judge) < 2:
        raise DialbenchError("dialbench panel needs --name NAME and two or more --judge")
    config = PanelConfig(name=name, protocol=protocol, judges=judge, method=method)
    print_panel_output(make_panel(config, run))
