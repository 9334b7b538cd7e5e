"""`dialbench judge`: LLM judges over the dialogues of a run, side by side."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from dialbench.cli import app
from dialbench.cli.data import DEFAULT_RUN, RunDir
from dialbench.judge.protocols import PROTOCOLS, get_protocol
from dialbench.judge.run import (
    DEFAULT_BATCH_SIZE,
    JudgeRunSummary,
    judge_dialogues,
    select_dialogues,
)
from dialbench.judge.settings import JudgeSettings
from dialbench.llm.base import ReasoningEffort
from dialbench.llm.runner import Runner
from dialbench.llm.specs import DEFAULT_LOCAL_MODEL, ModelConfig
from dialbench.store import RunStore

console = Console()
PROTOCOL_HELP = "; ".join(f"{name}: {p.description}" for name, p in PROTOCOLS.items())


def _print_summary(summary: JudgeRunSummary) -> None:
    table = Table(
        title=f"{summary.protocol} on {summary.dialogues} dialogue(s), {summary.seconds:.1f} s",
        title_justify="left",
    )
    for column in ("judge", "judgments", "already ok", "ok", "unscored", "unscored rate"):
        table.add_column(column, justify="left" if column == "judge" else "right")
    table.add_column("tokens in/out", justify="right")
    table.add_column("cost", justify="right")
    for tally in summary.judges:
        done = tally.ok + tally.unscored
        rate = f"{tally.unscored / done:.1%}" if done else "-"
        cost = tally.usage.cost_usd
        table.add_row(
            tally.judge_model,
            str(tally.judgments),
            str(tally.already_ok),
            str(tally.ok),
            str(tally.unscored),
            rate,
            f"{tally.usage.prompt_tokens}/{tally.usage.completion_tokens}",
            "-" if cost is None else f"${cost:.4f}",
        )
    console.print(table)


@app.command()
def judge(
    run: RunDir = DEFAULT_RUN,
    protocol: Annotated[str, typer.Option("--protocol", "-p", help=PROTOCOL_HELP)] = "issues",
    judges: Annotated[
        list[str], typer.Option("--judge", "-j", help="Judge model spec; repeat for several.")
    ] = [DEFAULT_LOCAL_MODEL],  # noqa: B006  (typer reads defaults, never mutates them)
    samples: Annotated[int, typer.Option(min=1, max=20, help="Judgments per item.")] = 1,
    temperature: Annotated[float, typer.Option(min=0.0)] = 0.0,
    reasoning_effort: Annotated[
        ReasoningEffort | None, typer.Option(help="For reasoning models.")
    ] = None,
    max_tokens: Annotated[int | None, typer.Option(min=1, help="Default: the protocol's.")] = None,
    few_shot: Annotated[
        bool, typer.Option("--few-shot", help="holistic: DiQAD's three examples.")
    ] = False,
    other: Annotated[bool, typer.Option("--other", help="issues: also ask for 'other'.")] = False,
    language: Annotated[str | None, typer.Option(help="Only dialogues in this language.")] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="Only the first N dialogues.")] = None,
    api_key_env: Annotated[
        str | None, typer.Option(help="Environment variable holding the judges' API key.")
    ] = None,
    batch_size: Annotated[
        int, typer.Option(min=1, help="Judgments stored per transaction.")
    ] = DEFAULT_BATCH_SIZE,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Judge the run's dialogues under one protocol with one or more judges.

    A re-run skips what is judged (zero model calls) and resumes a killed run.
    """
    settings = JudgeSettings(
        temperature=temperature,
        reasoning_effort=reasoning_effort,
        samples=samples,
        max_tokens=max_tokens,
        few_shot=few_shot,
        other_issue=other,
    )
    chosen = get_protocol(protocol, settings)
    configs = [ModelConfig(spec=spec, api_key_env=api_key_env) for spec in dict.fromkeys(judges)]
    config = {
        "protocol": protocol,
        "judges": [c.spec for c in configs],
        "settings": settings.model_dump(mode="json"),
        "language": language,
        "limit": limit,
    }
    with RunStore.open(run, create=False) as store:
        dialogues = select_dialogues(store, language=language, limit=limit)
        with (
            store.run("judge", config) as record,
            Runner(run, run_id=record.id, quiet=quiet) as runner,
        ):
            summary = runner.run_sync(
                judge_dialogues(
                    store, runner, chosen, configs, dialogues, record, batch_size=batch_size
                )
            )
    _print_summary(summary)
    console.print(f"report: dialbench report {Path(run)}", highlight=False)
