"""`dialbench simulate`: MEDAL-style user-chatbot dialogues from a YAML config."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from dialbench.cli.app import app
from dialbench.cli.failures import StrictOption, close_with_failures
from dialbench.cli.options import DEFAULT_RUN, RunOption
from dialbench.errors import DialbenchError
from dialbench.io.validation import describe_error
from dialbench.seeds import crossed_coverage_table
from dialbench.simulate import SimulationConfig, SimulationResult, build_contexts, load_config
from dialbench.simulate import simulate as run_simulation

console = Console()
Specs = Annotated[list[str] | None, typer.Option(help="Replaces the config's list; repeatable.")]


# The command-line option that sets each config field, for errors about a value given there.
OPTION_OF = {
    "languages": "--languages",
    "seeds": "--contexts",
    "user": "--user",
    "chatbots": "--chatbot",
    "max_utterances": "--max-utterances",
    "concurrency": "--concurrency",
}


def _with_overrides(config: SimulationConfig, **flags: Any) -> SimulationConfig:
    """The config with command-line values in place, validated like the file itself.

    Fields are replaced on the validated records rather than on a dump of them, so a model's
    credentials, which no dump holds, stay with it.
    """
    data: dict[str, Any] = dict(config)
    if flags["languages"]:
        data["languages"] = [{"language": tag} for tag in flags["languages"].split(",")]
    if flags["contexts"] is not None:
        data["seeds"] = {**dict(config.seeds), "contexts": flags["contexts"]}
    if flags["user"]:
        data["user"] = {**dict(config.user), "models": [{"spec": s} for s in flags["user"]]}
    if flags["chatbot"]:
        data["chatbots"] = {
            **dict(config.chatbots),
            "models": [{"spec": s} for s in flags["chatbot"]],
        }
    if flags["no_validator"]:
        data["validator"] = {**dict(config.validator), "model": None}
    for name in ("max_utterances", "concurrency"):
        if flags[name] is not None:
            data[name] = flags[name]
    try:
        return SimulationConfig.model_validate(data)
    except ValidationError as invalid:
        problems = []
        for problem in invalid.errors():
            field, message = describe_error(problem)
            option = OPTION_OF.get(str(problem["loc"][0]), "") if problem["loc"] else ""
            problems.append(f"{option or 'config'}: field '{field}': {message}")
        raise DialbenchError("\n".join(problems)) from None


def _coverage(config: SimulationConfig) -> Table:
    """Coverage of every language's contexts, sampled for one language only (they are the same
    contexts in each), so a dry run of a large config takes no time."""
    table = Table(title="Seed contexts by axis")
    for column in ("axis", "value", "contexts", "share"):
        table.add_column(column, justify="right" if column in ("contexts", "share") else "left")
    one_language = build_contexts(config, config.languages[:1])
    for row in crossed_coverage_table(one_language, config.languages):
        table.add_row(
            escape(row.axis), escape(row.value[:60]), str(row.contexts), f"{row.share:.0%}"
        )
    return table


def _summary(summary: SimulationResult, run_dir: Path) -> Table:
    table = Table(title=escape(f"Simulation run {summary.run_id} in {run_dir}"))
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
    strict: StrictOption = False,
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
    summary = run_simulation(config, run, quiet=quiet)
    console.print(_summary(summary, run))
    close_with_failures(
        [("", summary.failures, summary.generated)],
        strict=strict,
        retry="each dialogue's metadata.error says why; the next run retries them",
    )
    if summary.generated and summary.end_reasons.get("error", 0) == summary.generated:
        raise DialbenchError(
            f"every one of the {summary.generated} dialogues generated ended in error (each "
            "dialogue's metadata.error says why); they are stored and the next run retries them"
        )
