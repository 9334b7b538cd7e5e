"""`dialbench judge`: LLM judges over the dialogues of a run, side by side."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.console import Console

from dialbench.cli.app import app
from dialbench.cli.failures import StrictOption, close_with_failures
from dialbench.cli.options import DEFAULT_RUN, RunDir, key_value_pairs
from dialbench.errors import DialbenchError
from dialbench.io.validation import describe_error
from dialbench.judge.api import judge
from dialbench.judge.config import DEFAULT_STORE_EVERY, JudgeConfig
from dialbench.judge.judging import JudgeResult
from dialbench.judge.prompt_language import PromptLanguage
from dialbench.judge.registry import PROTOCOLS
from dialbench.judge.settings import JudgeSettings
from dialbench.llm.base import ReasoningEffort, StructuredMode
from dialbench.llm.specs import DEFAULT_LOCAL_MODEL, ModelConfig

console = Console()


def _protocol_help() -> str:
    lines = []
    for name, protocol in PROTOCOLS.items():
        options = ", ".join(
            f"{key} ({field.description})" if field.description else key
            for key, field in protocol.Options.model_fields.items()
        )
        lines.append(
            f"{name}: {protocol.description}" + (f"; options: {options}" if options else "")
        )
    return ". ".join(lines)


def print_judge_summary(summary: JudgeResult) -> None:
    """One line per judge: plain text stays readable in any terminal width and in logs."""
    console.print(
        f"{summary.protocol}: {summary.dialogues} dialogue(s), {summary.seconds:.1f} s",
        highlight=False,
        markup=False,
    )
    for tally in summary.judges:
        done = tally.ok + tally.unscored
        line = (
            f"{tally.judge_model} [{tally.configuration}]: {tally.judgments} judgment(s): "
            f"{tally.already_ok} already ok, {tally.ok} ok, {tally.unscored} unscored"
            + (f", {tally.deferred} deferred to a batch" if tally.deferred else "")
        )
        if done:
            cost = tally.usage.cost_usd
            line += (
                f" ({tally.unscored / done:.1%}); {tally.usage.prompt_tokens} prompt + "
                f"{tally.usage.completion_tokens} completion tokens, "
                f"cost {'unknown' if cost is None else f'${cost:.4f}'}"
            )
        console.print(line, highlight=False, soft_wrap=True, markup=False)
    for line in summary.few_shot.lines() if summary.few_shot else []:
        console.print(line, highlight=False, soft_wrap=True, markup=False)
    for note in summary.notes:
        console.print(f"note: {note}", highlight=False, soft_wrap=True, markup=False)


def _nothing_usable(summary: JudgeResult) -> str | None:
    """Why the command produced nothing usable (every judgment unscored), if it did not."""
    if any(t.ok or t.already_ok or t.deferred for t in summary.judges):
        return None
    first = next((t.failures.first_reason for t in summary.judges if t.failures.count), None)
    return f"every judgment is unscored (stored as such); the first error: {first}"


def print_judged(summary: JudgeResult, *, strict: bool = False) -> None:
    """The summary, one line per judge, and the unscored by reason; an error when every
    judgment came back unscored (with `strict`, when any did)."""
    print_judge_summary(summary)
    close_with_failures(
        [(f"{t.judge_model}: ", t.failures, t.ok + t.unscored) for t in summary.judges],
        strict=strict,
        retry="each judgment's error says why; the next run judges them again",
    )
    if (reason := _nothing_usable(summary)) is not None:
        raise DialbenchError(reason)


@app.command(name="judge")
def judge_command(
    run: RunDir = DEFAULT_RUN,
    protocol: Annotated[str, typer.Option("--protocol", "-p", help=_protocol_help())] = "issues",
    option: Annotated[
        list[str], typer.Option("--option", "-o", help="Protocol option KEY=VALUE; repeatable.")
    ] = [],  # noqa: B006  (typer reads defaults, never mutates them)
    judges: Annotated[
        list[str], typer.Option("--judge", "-j", help="Judge model spec; repeat for several.")
    ] = [DEFAULT_LOCAL_MODEL],  # noqa: B006
    samples: Annotated[int, typer.Option(min=1, max=20, help="Judgments per item.")] = 1,
    temperature: Annotated[float, typer.Option(min=0.0)] = 0.0,
    reasoning_effort: Annotated[
        ReasoningEffort | None, typer.Option(help="For reasoning models.")
    ] = None,
    max_tokens: Annotated[int | None, typer.Option(min=1, help="Default: the protocol's.")] = None,
    language: Annotated[
        list[str], typer.Option(help="Only dialogues in this language; repeat for several.")
    ] = [],  # noqa: B006
    source: Annotated[
        list[str], typer.Option(help="Only dialogues from this source (medal, selfchat, ...).")
    ] = [],  # noqa: B006
    limit: Annotated[
        int | None, typer.Option(min=1, help="Only the first N dialogues of each language.")
    ] = None,
    examples_from: Annotated[
        Path | None,
        typer.Option(
            help="The run whose reviewed labels --option few_shot=N shows as examples "
            "(default: the judged run).",
        ),
    ] = None,
    api_key_env: Annotated[
        str | None, typer.Option(help="Environment variable holding the judges' API key.")
    ] = None,
    concurrency: Annotated[
        int | None,
        typer.Option(min=1, help="Calls in flight per judge (default: 1 local, 32 HTTP)."),
    ] = None,
    structured_output: Annotated[
        StructuredMode | None,
        typer.Option(
            help="How judges are asked for JSON: json_schema, json_object (llama_cpp.server) "
            "or prompt. Default: json_schema, or for a self-hosted server the first it takes."
        ),
    ] = None,
    prompt_language: Annotated[
        PromptLanguage,
        typer.Option(
            help="en: every prompt in English (as in MEDAL); dialogue: each item's prompt in its "
            "dialogue's language where the protocol has a translation, else English (said once)."
        ),
    ] = "en",
    fence: Annotated[
        bool,
        typer.Option(
            "--fence",
            help="Show the judged text to the judge as fenced data: text in it that could pass "
            "for the prompt's own markers, role tags or verdicts neutralised (stored text is "
            "untouched). Judgments under it are another configuration (defence fence-v1).",
        ),
    ] = False,
    store_every: Annotated[
        int, typer.Option(min=1, help="Judgments stored per transaction.")
    ] = DEFAULT_STORE_EVERY,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    strict: StrictOption = False,
    batch: Annotated[
        bool,
        typer.Option(
            "--batch",
            help="Submit the uncached calls as an OpenAI-style batch (half price) and store "
            "no judgment for them; then: dialbench batch wait RUN, and this command again.",
        ),
    ] = False,
) -> None:
    """Judge the run's dialogues under one protocol with one or more judges.

    A re-run under the same settings skips what is judged (zero model calls) and resumes a
    killed run; other options, settings or edited prompt files make new judgments beside the
    old ones. Exits non-zero when every judgment is unscored.
    """
    try:
        config = JudgeConfig(
            protocol=protocol,
            options=dict(key_value_pairs(option, "--option")),
            judges=[
                ModelConfig(
                    spec=spec,
                    api_key_env=api_key_env,
                    max_concurrency=concurrency,
                    structured_output=structured_output,
                )
                for spec in dict.fromkeys(judges)
            ],
            settings=JudgeSettings(
                temperature=temperature,
                reasoning_effort=reasoning_effort,
                samples=samples,
                max_tokens=max_tokens,
                prompt_language=prompt_language,
                fence=fence,
            ),
            languages=language,
            sources=source,
            limit=limit,
            examples_from=examples_from,
            store_every=store_every,
        )
    except ValidationError as invalid:  # a value no option check caught, e.g. a language tag
        field, message = describe_error(invalid.errors()[0])
        raise DialbenchError(f"{field}: {message}") from None
    config.build_protocol()  # an unknown protocol or option is reported before any work
    if samples > 1 and temperature == 0.0:
        console.print(
            "note: at temperature 0 the samples will be alike; set --temperature to vary them",
            highlight=False,
        )
    summary = judge(config, run, quiet=quiet, batch=batch)
    print_judged(summary, strict=strict)
    if summary.batches:
        console.print(
            f"batch(es) {', '.join(summary.batches)} submitted; wait for them with "
            f"dialbench batch wait {Path(run)}, then run this command again",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
        return
    console.print(f"report: dialbench report {Path(run)}", highlight=False, markup=False)
