"""`dialbench arena`: BotChat Arena judging of self-chat pairs, then the ratings with intervals
and pass@N on the console; the report (`dialbench report RUN`) holds every BotChat result."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

from dialbench.cli.app import app
from dialbench.cli.failures import StrictOption
from dialbench.cli.judge import print_judged
from dialbench.cli.options import DEFAULT_RUN, RunDir
from dialbench.errors import DialbenchError
from dialbench.judge.api import judge
from dialbench.judge.config import JudgeConfig
from dialbench.judge.protocols.arena import ArenaProtocol
from dialbench.judge.settings import JudgeSettings
from dialbench.llm.specs import DEFAULT_LOCAL_MODEL, ModelConfig
from dialbench.schema import Dialogue
from dialbench.store import RunStore

if TYPE_CHECKING:
    import pandas as pd

console = Console()


def _check_pairs(run: Path) -> None:
    """Say plainly when there is nothing to compare, before any judge is loaded."""
    with RunStore.open(run, create=False) as store:
        dialogues = list(store.records(Dialogue, source="selfchat"))
    if next(ArenaProtocol().pairs(dialogues), None) is None:
        raise DialbenchError(
            f"{run} holds no two different self-chats from the same ChatSEED and length by "
            f"different models ({len(dialogues)} self-chat(s) stored): run dialbench selfchat "
            "with at least two --model (identical dialogues are not compared)"
        )


@app.command(name="arena")
def arena_command(
    run: RunDir = DEFAULT_RUN,
    judges: Annotated[
        list[str], typer.Option("--judge", "-j", help="Judge model spec; repeat for several.")
    ] = [DEFAULT_LOCAL_MODEL],  # noqa: B006  (typer reads defaults, never mutates them)
    max_tokens: Annotated[int | None, typer.Option(min=1, help="Default: the protocol's.")] = None,
    no_judge: Annotated[
        bool, typer.Option("--no-judge", help="Only print the results of stored verdicts.")
    ] = False,
    rounds: Annotated[
        int | None, typer.Option(min=1, help="ELO shuffles per seed; default the report's, 1000.")
    ] = None,
    resamples: Annotated[
        int | None,
        typer.Option(min=1, help="Cluster-bootstrap draws for BT; default the report's, 1000."),
    ] = None,
    pass_at: Annotated[
        str | None,
        typer.Option(help="UniEval pass@N at these N, comma-separated; default 4,8,12,16."),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    strict: StrictOption = False,
) -> None:
    """Judge every pair of self-chats from the same ChatSEED and length in both orders (the
    Arena prompt), then print the bootstrap ELO and Bradley-Terry ratings with 95 % intervals
    and UniEval pass@N. A re-run judges nothing already judged. `dialbench report RUN` shows
    every BotChat table and figure with its definitions."""
    ns = _pass_at(pass_at)
    if not no_judge:
        _check_pairs(run)
        config = JudgeConfig(
            protocol="arena",
            judges=[ModelConfig(spec=spec) for spec in dict.fromkeys(judges)],
            settings=JudgeSettings(max_tokens=max_tokens),
        )
        print_judged(judge(config, run, quiet=quiet), strict=strict)
    _print_results(run, rounds, resamples, ns)


def _pass_at(text: str | None) -> list[int] | None:
    """The N of --pass-at, or None for the report's."""
    if text is None:
        return None
    try:
        ns = sorted({int(n) for n in text.split(",")})
    except ValueError:
        raise DialbenchError(f"--pass-at {text!r}: write numbers, e.g. 4,8,12,16") from None
    if not ns or ns[0] < 1:
        raise DialbenchError(f"--pass-at {text!r}: every N must be at least 1")
    return ns


def _print_results(
    run: Path, rounds: int | None, resamples: int | None, ns: list[int] | None
) -> None:
    """The ratings and pass@N, computed by the builders the report's sections use."""
    from dialbench.botchat import results  # pandas and scipy, when it runs
    from dialbench.botchat.passrate import DEFAULT_NS, pass_at_n

    with RunStore.open(run, create=False) as store:
        dialogues = results.self_chats(store)
        if not dialogues:
            raise DialbenchError(
                f"{run} holds no finished self-chats: run dialbench selfchat first"
            )
        verdicts = results.arena_verdicts(store, dialogues)
        unieval = results.unieval_verdicts(store, dialogues)
    notes = []
    if unieval.empty:
        notes.append(f"no scored UniEval judgments: dialbench judge {run} -p unieval")
    else:
        _print_table(pass_at_n(unieval, ns or DEFAULT_NS), "%.3f")
    if verdicts.empty:
        notes.append(f"no scored arena judgments: dialbench arena {run}")
    else:
        rated = results.arena_ratings(
            verdicts,
            dialogues,
            rounds=rounds or results.DEFAULT_ROUNDS,
            resamples=resamples or results.DEFAULT_RESAMPLES,
        )
        notes += rated.notes
        if not rated.table.empty:
            columns = ["judge", "n", "language", "model", "comparisons"]
            _print_table(rated.table[[*columns, "elo", "elo_std", "bt", "bt_low", "bt_high"]])
    for note in notes:
        console.print(f"note: {note}", highlight=False, markup=False, soft_wrap=True)
    console.print(
        f"every BotChat table and figure, with its definitions: dialbench report {run}",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )


def _print_table(table: pd.DataFrame, float_format: str = "%.1f") -> None:
    console.print(
        table.to_string(index=False, float_format=float_format), markup=False, soft_wrap=True
    )
