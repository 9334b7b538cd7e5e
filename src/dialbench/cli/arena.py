"""`dialbench arena`: BotChat Arena judging of self-chat pairs, then the run's BotChat results
(ratings with intervals, win matrices, order flips, pass@N, utterance lengths)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from dialbench.cli import app
from dialbench.cli.judge import _nothing_usable, _print_summary
from dialbench.cli.records import DEFAULT_RUN, RunDir
from dialbench.errors import DialbenchError
from dialbench.judge.protocols.arena import ArenaProtocol
from dialbench.judge.settings import JudgeSettings
from dialbench.judge.stage import JudgeConfig, judge
from dialbench.llm.specs import DEFAULT_LOCAL_MODEL, ModelConfig
from dialbench.schema import Dialogue
from dialbench.store import RunStore

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
        bool, typer.Option("--no-judge", help="Only compute the results from stored verdicts.")
    ] = False,
    rounds: Annotated[int, typer.Option(min=1, help="ELO shuffles per seed.")] = 1000,
    resamples: Annotated[int, typer.Option(min=1, help="Cluster-bootstrap draws for BT.")] = 1000,
    pass_at: Annotated[
        str, typer.Option(help="UniEval pass@N at these N, comma-separated.")
    ] = "4,8,12,16",
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Folder; default RUN/botchat.")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Judge every pair of self-chats from the same ChatSEED and length in both orders (the
    Arena prompt), then write BotChat's results to RUN/botchat: bootstrap ELO and Bradley-Terry
    ratings with 95 % intervals, win/tie/lose matrices, order flips per judge, UniEval pass@N
    and utterance lengths. A re-run judges nothing already judged."""
    try:
        ns = sorted({int(n) for n in pass_at.split(",")})
    except ValueError:
        raise DialbenchError(f"--pass-at {pass_at!r}: write numbers, e.g. 4,8,12,16") from None
    if not ns or ns[0] < 1:
        raise DialbenchError(f"--pass-at {pass_at!r}: every N must be at least 1")
    if not no_judge:
        _check_pairs(run)
        config = JudgeConfig(
            protocol="arena",
            judges=[ModelConfig(spec=spec) for spec in dict.fromkeys(judges)],
            settings=JudgeSettings(max_tokens=max_tokens),
        )
        summary = judge(config, run, quiet=quiet)
        _print_summary(summary)
        if (reason := _nothing_usable(summary)) is not None:
            raise DialbenchError(reason)
    from dialbench.arena.botchat import write_botchat  # pandas, scipy, matplotlib when it runs

    with RunStore.open(run, create=False) as store:
        written = write_botchat(
            store,
            output or Path(run) / "botchat",
            rounds=rounds,
            resamples=resamples,
            pass_at=ns,
        )
    for note in written.notes:
        console.print(f"note: {note}", highlight=False, markup=False, soft_wrap=True)
    if not written.ratings.empty:
        shown = written.ratings[
            [
                *("judge", "n", "language", "model", "comparisons"),
                *("elo", "elo_std", "bt", "bt_low", "bt_high"),
            ]
        ]
        console.print(
            shown.to_string(index=False, float_format="%.1f"), markup=False, soft_wrap=True
        )
    console.print(f"wrote {written.markdown}", highlight=False, markup=False, soft_wrap=True)
