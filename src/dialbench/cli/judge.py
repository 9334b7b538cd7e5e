"""`dialbench judge`: LLM judges over the dialogues of a run, side by side."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

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
    """One line per judge: plain text stays readable in any terminal width and in logs."""
    console.print(
        f"{summary.protocol}: {summary.dialogues} dialogue(s), {summary.seconds:.1f} s",
        highlight=False,
    )
    for tally in summary.judges:
        done = tally.ok + tally.unscored
        line = (
            f"{tally.judge_model}: {tally.judgments} judgment(s): {tally.already_ok} already ok, "
            f"{tally.ok} ok, {tally.unscored} unscored"
        )
        if done:
            cost = tally.usage.cost_usd
            line += (
                f" ({tally.unscored / done:.1%}); {tally.usage.prompt_tokens} prompt + "
                f"{tally.usage.completion_tokens} completion tokens, "
                f"cost {'unknown' if cost is None else f'${cost:.4f}'}"
            )
        console.print(line, highlight=False, soft_wrap=True)


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
    language: Annotated[
        list[str], typer.Option(help="Only dialogues in this language; repeat for several.")
    ] = [],  # noqa: B006
    limit: Annotated[
        int | None, typer.Option(min=1, help="Only the first N dialogues of each language.")
    ] = None,
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
    if samples > 1 and temperature == 0.0:
        console.print(
            "note: at temperature 0 the samples will be alike; set --temperature to vary them",
            highlight=False,
        )
    configs = [ModelConfig(spec=spec, api_key_env=api_key_env) for spec in dict.fromkeys(judges)]
    config = {
        "protocol": protocol,
        "judges": [c.spec for c in configs],
        "settings": settings.model_dump(mode="json"),
        "languages": language,
        "limit": limit,
    }
    with RunStore.open(run, create=False) as store:
        dialogues = select_dialogues(store, languages=language, limit=limit)
        with (
            store.run("judge", config) as record,
            Runner(run, run_id=record.id, quiet=quiet) as runner,
        ):
            models = [runner.model(c, role="judge") for c in configs]
            job = judge_dialogues(
                store, runner, chosen, models, dialogues, record, batch_size=batch_size
            )
            summary = runner.run_sync(job)
    _print_summary(summary)
    console.print(f"report: dialbench report {Path(run)}", highlight=False)
