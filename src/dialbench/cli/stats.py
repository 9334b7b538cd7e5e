"""`dialbench stats`: what the dialogues in a run look like, per language, and, once they are
judged, every chatbot figure with its 95% interval over the seeds it grew from."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console

from dialbench.cli.app import app
from dialbench.cli.options import DEFAULT_RUN, StoredRun
from dialbench.cli.terminal_tables import KeyedTable, figure, screen_width, table
from dialbench.store import RunStore

console = Console()
TEXT = (
    "language",
    "end reason",
    "role",
    "model",
    "protocol",
    "judge",
    "dimension",
    "chatbot",
    "note",
)


# What a piped table of chatbot figures keeps whatever its width: which figure, and its value.
FIGURE_KEYS = ("protocol", "judge", "dimension", "chatbot", "language", "value [low, high]")


@app.command()
def stats(
    run: StoredRun = DEFAULT_RUN,
    source: Annotated[
        str | None,
        typer.Option(help="Only dialogues of this source (e.g. medal: kept by the filter)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the statistics as JSON.")] = False,
) -> None:
    """Dialogues per language, turns, utterance length, lexical diversity, validator acceptance
    per turn, end reasons, and tokens and cost per role (MEDAL Table 3 and more); once judged,
    every chatbot figure with its 95% interval and its number of seeds."""
    from dialbench.cli.run_stats import run_statistics

    with RunStore.open(run, create=False) as store:
        result = run_statistics(store, source)
    if as_json:
        print(result.model_dump_json(indent=2))
        return
    if not result.languages:
        console.print("no dialogues")
    else:
        tools = any(r.tool_turns_per_dialogue for r in result.languages)  # else no such column
        console.print(
            table(
                "Dialogues per language (utterance lengths: words; zh, ja: characters)",
                (
                    "language",
                    "dialogues",
                    "turns",
                    "utt. len.",
                    "user",
                    "chatbot",
                    "MTLD",
                    *(["tool turns"] if tools else []),
                ),
                (
                    (
                        r.language,
                        f"{r.dialogues:,}",
                        figure(r.turns_per_dialogue, 2),
                        figure(r.utterance_length),
                        figure(r.user_utterance_length),
                        figure(r.assistant_utterance_length),
                        figure(r.mtld),
                        *([figure(r.tool_turns_per_dialogue, 2)] if tools else []),
                    )
                    for r in result.languages
                ),
                text=TEXT,
            )
        )
        console.print(
            table(
                "How dialogues ended",
                ("language", "end reason", "dialogues"),
                (
                    (r.language, reason, f"{count:,}")
                    for r in result.languages
                    for reason, count in sorted(r.end_reasons.items())
                ),
                text=TEXT,
            )
        )
    if result.acceptance:
        console.print(
            table(
                "Validator acceptance on user turns",
                ("language", "turn", "turns", "attempts", "first try", "acceptance"),
                (
                    (
                        a.language,
                        str(a.turn_index),
                        str(a.turns),
                        str(a.attempts),
                        f"{a.accepted_first_try / a.turns:.0%}",
                        f"{a.acceptance_rate:.0%}",
                    )
                    for a in result.acceptance
                ),
                text=TEXT,
            )
        )
    if result.usage:
        console.print(
            table(
                "Model use per role",
                (
                    "role",
                    "model",
                    "calls",
                    "cached",
                    "failed",
                    "prompt tok.",
                    "completion tok.",
                    "cost",
                ),
                (
                    (
                        u.role,
                        u.model,
                        f"{u.calls:,}",
                        f"{u.cached_calls:,}",
                        f"{u.failed_calls:,}",
                        f"{u.usage.prompt_tokens:,}",
                        f"{u.usage.completion_tokens:,}",
                        "-" if u.usage.cost_usd is None else f"${u.usage.cost_usd:,.4f}",
                    )
                    for u in result.usage
                ),
                text=TEXT,
            )
        )
    if result.chatbot_figures:
        corrected = any(f.corrected is not None for f in result.chatbot_figures)
        extra = ("corrected [low, high]", "judge bias", "labelled") if corrected else ()
        KeyedTable(
            "Chatbot figures (95% interval over seeds)"
            + ("; corrected by human labels (PPI++)" if corrected else ""),
            (*FIGURE_KEYS, *extra, "seeds", "note"),
            [
                (
                    f.protocol,
                    f.judge,
                    f.dimension,
                    f.chatbot,
                    f.language,
                    _with_interval(f.value, f.low, f.high),
                    *(
                        (
                            _with_interval(f.corrected, f.corrected_low, f.corrected_high),
                            _with_interval(f.bias, f.bias_low, f.bias_high, signed=True),
                            str(f.labelled),
                        )
                        if corrected
                        else ()
                    ),
                    str(f.seeds),
                    "; ".join(note for note in (f.note, f.correction_note) if note),
                )
                for f in result.chatbot_figures
            ],
            kept=(*FIGURE_KEYS, *extra[:1]),
            text=TEXT,
            compact=True,
            drop_first=("note", "seeds", "labelled", "judge bias"),
        ).print(console, screen_width(console))


def _with_interval(
    value: float | None, low: float | None, high: float | None, signed: bool = False
) -> str:
    if value is None:
        return "-"
    shown = f"{value:+.2f}" if signed else f"{value:.2f}"
    if low is None or high is None:
        return shown
    return f"{shown} [{low:.2f}, {high:.2f}]"
