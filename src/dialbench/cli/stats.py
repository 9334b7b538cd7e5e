"""`dialbench stats`: what the dialogues in a run look like, per language."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from dialbench.cli import app
from dialbench.store import RunStore

console = Console()


def _number(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


@app.command()
def stats(
    run: Annotated[Path, typer.Argument(envvar="DIALBENCH_RUN", help="Run directory.")] = Path(
        "runs/default"
    ),
    as_json: Annotated[bool, typer.Option("--json", help="Print the statistics as JSON.")] = False,
) -> None:
    """Dialogues per language, turns, utterance length, lexical diversity, validator acceptance
    per turn, end reasons, and tokens and cost per role (MEDAL Table 3 and more)."""
    from dialbench.analysis.dataset_stats import dataset_statistics

    with RunStore.open(run, create=False) as store:
        result = dataset_statistics(store)
    if as_json:
        print(result.model_dump_json(indent=2))
        return
    languages = Table(
        title="Dialogues per language (utterance lengths: words; zh, ja: characters)",
        title_justify="left",
    )
    for column in ("language", "dialogues", "turns", "utt. len.", "user", "chatbot", "MTLD"):
        languages.add_column(column, justify="left" if column == "language" else "right")
    ended = Table(title="How dialogues ended", title_justify="left")
    for column in ("language", "end reason", "dialogues"):
        ended.add_column(column, justify="right" if column == "dialogues" else "left")
    for row in result.languages:
        languages.add_row(
            row.language,
            f"{row.dialogues:,}",
            _number(row.turns_per_dialogue, 2),
            _number(row.utterance_length),
            _number(row.user_utterance_length),
            _number(row.assistant_utterance_length),
            _number(row.mtld),
        )
        for reason, count in sorted(row.end_reasons.items()):
            ended.add_row(row.language, reason, f"{count:,}")
    console.print(languages if result.languages else "no dialogues")
    if result.languages:
        console.print(ended)
    if result.acceptance:
        accepted = Table(title="Validator acceptance on user turns", title_justify="left")
        for column in ("language", "turn", "turns", "attempts", "first try", "acceptance"):
            accepted.add_column(column, justify="left" if column == "language" else "right")
        for a in result.acceptance:
            accepted.add_row(
                a.language,
                str(a.turn_index),
                str(a.turns),
                str(a.attempts),
                f"{a.accepted_first_try / a.turns:.0%}",
                f"{a.acceptance_rate:.0%}",
            )
        console.print(accepted)
    if result.usage:
        spent = Table(title="Model use per role", title_justify="left")
        for column in (
            "role",
            "model",
            "calls",
            "cached",
            "failed",
            "prompt tok.",
            "completion tok.",
            "cost",
        ):
            spent.add_column(column, justify="left" if column in ("role", "model") else "right")
        for u in result.usage:
            cost = "-" if u.usage.cost_usd is None else f"${u.usage.cost_usd:,.4f}"
            spent.add_row(
                u.role,
                u.model,
                f"{u.calls:,}",
                f"{u.cached_calls:,}",
                f"{u.failed_calls:,}",
                f"{u.usage.prompt_tokens:,}",
                f"{u.usage.completion_tokens:,}",
                cost,
            )
        console.print(spent)
