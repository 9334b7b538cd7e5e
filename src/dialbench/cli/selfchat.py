"""`dialbench selfchat`: BotChat dialogues, one model playing both speakers from each ChatSEED."""

from __future__ import annotations

from typing import Annotated

import typer
from pydantic import ValidationError
from rich.console import Console

from dialbench.botchat.api import selfchat
from dialbench.botchat.config import SelfChatConfig
from dialbench.botchat.selfchat import SelfChatResult
from dialbench.cli.app import app
from dialbench.cli.failures import StrictOption, close_with_failures
from dialbench.cli.options import DEFAULT_RUN, RunDir, concurrent_model
from dialbench.errors import DialbenchError
from dialbench.io.validation import describe_error
from dialbench.llm.base import GenerationParams

console = Console()


def _print_summary(summary: SelfChatResult) -> None:
    console.print(
        f"selfchat run {summary.run_id}: {summary.seeds} ChatSEED(s), {summary.planned} "
        f"dialogue(s): {summary.already_stored} already stored, {summary.generated} generated "
        f"({summary.failures.count} ended by a failed call, redone by the next run); "
        f"{summary.dropped_steps} step(s) cut the history to fit the context window",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )


@app.command(name="selfchat")
def selfchat_command(
    run: RunDir = DEFAULT_RUN,
    model: Annotated[
        list[str], typer.Option("--model", "-m", help="Model spec; repeat for several.")
    ] = [],  # noqa: B006  (typer reads defaults, never mutates them)
    n: Annotated[int, typer.Option("--n", help="Utterances per dialogue, the seed included.")] = 16,
    seeds: Annotated[str, typer.Option(help="Source of the seed dialogues.")] = "mutual",
    limit: Annotated[int | None, typer.Option(min=1, help="Only the first K ChatSEEDs.")] = None,
    min_seed_utterances: Annotated[
        int, typer.Option(min=0, help="Only seeds whose human dialogue has this many utterances.")
    ] = 0,
    max_tokens: Annotated[int, typer.Option(min=1, help="Per generated utterance.")] = 128,
    temperature: Annotated[float, typer.Option(min=0.0)] = 0.0,
    context_tokens: Annotated[
        int | None,
        typer.Option(help="Context window for dropping old history; default a local model's."),
    ] = None,
    concurrency: Annotated[
        int,
        typer.Option(min=1, help="Dialogues in flight, and calls in flight per HTTP model."),
    ] = 16,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    strict: StrictOption = False,
) -> None:
    """Self-chat: each model continues each ChatSEED to N utterances (BotChat Algorithm 1).

    Resumable: a re-run skips stored dialogues and replays unfinished ones from the call cache
    (zero calls for completed utterances). Prints each model's utterance lengths in cl100k tokens.
    """
    if not model:
        raise DialbenchError("name at least one model: --model SPEC (e.g. local:qwen2.5-0.5b)")
    try:
        config = SelfChatConfig(
            models=[concurrent_model(spec, concurrency) for spec in dict.fromkeys(model)],
            n=n,
            seeds=seeds,
            limit=limit,
            min_seed_utterances=min_seed_utterances,
            params=GenerationParams(max_tokens=max_tokens, temperature=temperature),
            context_tokens=context_tokens,
            concurrency=concurrency,
        )
    except ValidationError as invalid:
        field, message = describe_error(invalid.errors()[0])
        raise DialbenchError(f"{field}: {message}") from None
    summary = selfchat(config, run, quiet=quiet)
    _print_summary(summary)
    from dialbench.botchat.lengths import length_table, store_lengths  # pandas when it runs
    from dialbench.store import RunStore

    with RunStore.open(run, create=False) as store:
        lengths = length_table(store_lengths(store))
    if not lengths.empty:
        console.print(
            "utterance lengths (cl100k_base tokens, generated utterances only):", soft_wrap=True
        )
        console.print(
            lengths.to_string(index=False, float_format="%.1f"), markup=False, soft_wrap=True
        )
    close_with_failures(
        [("", summary.failures, summary.generated)],
        strict=strict,
        retry="each self-chat's metadata.error says why; the next run retries them",
    )
    failed = summary.failures.count
    if failed and failed == summary.generated and not summary.already_stored:
        raise DialbenchError(
            f"every self-chat failed; the first error: {summary.failures.first_reason}"
        )
