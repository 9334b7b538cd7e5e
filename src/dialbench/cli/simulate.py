"""`dialbench simulate`: MEDAL-style user-chatbot dialogues from a YAML config."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from dialbench.cli import app
from dialbench.cli.data import DEFAULT_RUN, RunOption
from dialbench.seeds import coverage_table
from dialbench.simulate import SimulationConfig, SimulationSummary, build_contexts, load_config
from dialbench.simulate import simulate as run_simulation

console = Console()
Specs = Annotated[list[str] | None, typer.Option(help="Replaces the config's list; repeatable.")]


def _with_overrides(config: SimulationConfig, **flags: Any) -> SimulationConfig:
    """The config with command-line values in place, validated like the file itself."""
    data = config.model_dump(mode="json", exclude_unset=False)
    if flags["languages"]:
        data["languages"] = [{"language": tag} for tag in flags["languages"].split(",")]
    if flags["contexts"] is not None:
        data["seeds"]["contexts"] = flags["contexts"]
    if flags["user"]:
        data["user"]["models"] = [{"spec": spec} for spec in flags["user"]]
    if flags["chatbot"]:
        data["chatbots"]["models"] = [{"spec": spec} for spec in flags["chatbot"]]
    if flags["no_validator"]:
        data["validator"]["model"] = None
    for name in ("max_utterances", "concurrency"):
        if flags[name] is not None:
            data[name] = flags[name]
    return SimulationConfig.model_validate(data)


def _coverage(config: SimulationConfig) -> Table:
    table = Table(title="Seed contexts by axis")
    for column in ("axis", "value", "contexts", "share"):
        table.add_column(column, justify="right" if column in ("contexts", "share") else "left")
    for row in coverage_table(build_contexts(config)):
        table.add_row(row.axis, row.value[:60], str(row.contexts), f"{row.share:.0%}")
    return table


def _summary(summary: SimulationSummary, run_dir: Path) -> Table:
    table = Table(title=f"Simulation run {summary.run_id} in {run_dir}")
    table.add_column("")
    table.add_column("dialogues", justify="right")
    table.add_row("planned", str(summary.planned))
    table.add_row("already stored (skipped)", str(summary.already_stored))
    table.add_row("generated now", str(summary.generated))
    for reason, count in sorted(summary.end_reasons.items()):
        table.add_row(f"  ended: {reason}", str(count))
    for flag, count in sorted(summary.flagged.items()):
        table.add_row(f"  flagged: {flag}", str(count))
    table.add_row("  excluded by the filter", str(summary.excluded))
    rate = summary.acceptance_rate
    accepted = "-" if rate is None else f"{rate:.0%} of {summary.user_attempts}"
    table.add_row("validator acceptance (user attempts)", accepted)
    return table


@app.command()
def simulate(
    config_file: Annotated[Path, typer.Argument(metavar="CONFIG.yaml", help="Simulation config.")],
    run: RunOption = DEFAULT_RUN,
    languages: Annotated[str | None, typer.Option(help="Comma-separated, e.g. en,zh.")] = None,
    contexts: Annotated[int | None, typer.Option(help="Contexts per language.")] = None,
    user: Specs = None,
    chatbot: Specs = None,
    no_validator: Annotated[bool, typer.Option(help="Keep every user turn unvalidated.")] = False,
    max_utterances: Annotated[int | None, typer.Option(help="Turn cap (both roles).")] = None,
    concurrency: Annotated[int | None, typer.Option(help="Dialogues in flight.")] = None,
    dry_run: Annotated[
        bool, typer.Option(help="Only sample the contexts and show their coverage.")
    ] = False,
    quiet: Annotated[bool, typer.Option(help="No progress bar.")] = False,
) -> None:
    """Simulate user-chatbot dialogues (contexts x users x chatbots x languages); resumable."""
    config = _with_overrides(
        load_config(config_file),
        languages=languages,
        contexts=contexts,
        user=user,
        chatbot=chatbot,
        no_validator=no_validator,
        max_utterances=max_utterances,
        concurrency=concurrency,
    )
    console.print(_coverage(config))
    if dry_run:
        return
    console.print(_summary(run_simulation(config, run, quiet=quiet), run))
