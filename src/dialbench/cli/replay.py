"""`dialbench replay`: a candidate chatbot in the recorded chatbot's place, reply by reply."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.console import Console

from dialbench.cli.app import app
from dialbench.cli.failures import StrictOption, close_with_failures
from dialbench.cli.options import DEFAULT_RUN, RunDir, concurrent_model
from dialbench.errors import DialbenchError
from dialbench.io.validation import describe_error
from dialbench.llm.base import GenerationParams
from dialbench.replay.config import ReplayConfig, ReplayMode
from dialbench.replay.replaying import ReplayResult

console = Console()


def _summary_line(summary: ReplayResult) -> str:
    line = (
        f"replay run {summary.run_id}: {summary.planned} recorded dialogue(s): "
        f"{summary.already_stored} already replayed, {summary.replayed} replayed now "
        f"({summary.contexts} repl(ies); {summary.failures.count} ended by a failure, redone by "
        f"the next run); {summary.tool_calls} tool call(s), {summary.tool_calls_not_recorded} "
        "not in the recording"
    )
    if summary.unanswered:
        line += (
            f"; {summary.unanswered} repl(ies) still calling tools after the last round (no "
            "text: judged as they are; --max-tool-rounds allows more)"
        )
    if summary.offered_no_tools:
        line += (
            f"; {summary.offered_no_tools} dialogue(s) with tool turns replayed by a candidate "
            "that takes no tools (shown their utterances only)"
        )
    return line


def _system_prompt(system_prompt: str) -> dict[str, str]:
    """`recorded`, `none`, or a file holding the prompt to try."""
    if system_prompt in ("recorded", "none"):
        return {"system_prompt": system_prompt}
    path = Path(system_prompt)
    if not path.is_file():
        raise DialbenchError(
            f"--system-prompt {system_prompt}: no such file (give recorded, none or a file)"
        )
    return {"system_prompt": "given", "given_system_prompt": path.read_text(encoding="utf-8")}


@app.command(name="replay")
def replay_command(
    run: RunDir = DEFAULT_RUN,
    candidate: Annotated[
        str,
        typer.Option("--candidate", "-c", help="The chatbot to put in the recorded one's place."),
    ] = "",
    mode: Annotated[
        ReplayMode,
        typer.Option(
            help="last: each dialogue's final reply; every: each reply on its own prefix."
        ),
    ] = "last",
    source: Annotated[
        list[str],
        typer.Option(help="Only dialogues from this source (repeat); default every but replays."),
    ] = [],  # noqa: B006  (typer reads defaults, never mutates them)
    language: Annotated[
        list[str], typer.Option("--language", "-l", help="Only this language (repeat).")
    ] = [],  # noqa: B006
    limit: Annotated[int | None, typer.Option(min=1, help="Only the first K dialogues.")] = None,
    system_prompt: Annotated[
        str,
        typer.Option(
            help="recorded: the log's own, where import kept one; none; or a FILE with the "
            "prompt to try."
        ),
    ] = "recorded",
    max_tokens: Annotated[int, typer.Option(min=1, help="Per reply.")] = 256,
    temperature: Annotated[float, typer.Option(min=0.0)] = 0.0,
    max_tool_rounds: Annotated[
        int, typer.Option(min=0, help="Rounds of tool calls a reply may make before its text.")
    ] = 4,
    concurrency: Annotated[
        int, typer.Option(min=1, help="Dialogues in flight, and calls in flight per HTTP model.")
    ] = 16,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    strict: StrictOption = False,
) -> None:
    """Replay recorded dialogues with a candidate chatbot: its reply on each recorded prefix,
    tool calls answered from the recording, stored beside the recorded dialogue and paired with
    it, so judge, compare and check work on recorded against candidate.

    Resumable: a re-run skips stored replays and redoes failed ones from the call cache. The
    user's turns stay as recorded: with --mode every, each reply answers a conversation the
    recorded chatbot led up to.
    """
    if not candidate:
        raise DialbenchError("name the candidate: --candidate SPEC (e.g. local:qwen2.5-0.5b)")
    from dialbench.replay.api import replay

    try:
        config = ReplayConfig(
            candidate=concurrent_model(candidate, concurrency),
            mode=mode,
            sources=list(dict.fromkeys(source)),
            languages=list(dict.fromkeys(language)),
            limit=limit,
            params=GenerationParams(max_tokens=max_tokens, temperature=temperature),
            max_tool_rounds=max_tool_rounds,
            concurrency=concurrency,
            **_system_prompt(system_prompt),
        )
    except ValidationError as invalid:
        field, message = describe_error(invalid.errors()[0])
        raise DialbenchError(f"{field}: {message}") from None
    summary = replay(config, run, quiet=quiet)
    console.print(_summary_line(summary), highlight=False, markup=False, soft_wrap=True)
    close_with_failures(
        [("", summary.failures, summary.replayed)],
        strict=strict,
        retry="each replay's metadata.error says why; the next run retries them",
    )
