"""`dialbench probe`: how far text that addresses the judge moves its verdicts."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, get_args

import typer
from pydantic import ValidationError
from rich.console import Console

from dialbench.cli.app import app
from dialbench.cli.judge import print_judge_summary
from dialbench.cli.options import concurrent_model
from dialbench.cli.terminal_tables import KeyedTable, figure, screen_width
from dialbench.errors import DialbenchError
from dialbench.io.validation import describe_error
from dialbench.llm.measured import COMMAND as AGREEMENT_COMMAND
from dialbench.probes.card import JudgeCard
from dialbench.probes.injections import CONTROL, Kind, ProbeLanguage
from dialbench.probes.probe_set import Placement
from dialbench.probes.probing import ProbeConfig, probe
from dialbench.probes.shift import Estimate, ProbedProtocol, ProtocolShift

AGREEMENT = f"DBDC3 chit-chat sensibleness, by {AGREEMENT_COMMAND}"
COLUMNS = ("language", "placement", "kind", "n", "flips", "mean shift", "unscored")
CARD_COLUMNS = (
    "judge",
    "protocol",
    "language",
    "judgments",
    "unscored",
    "injected",
    "obeyed",
    "control",
    "most obeyed",
    "first slot",
    "longer",
)


def _choices(literal: object) -> str:
    return ", ".join(get_args(literal))


def _shown(estimate: Estimate | None, signed: bool) -> str:
    """A shift with its sign; `-` where nothing was scored."""
    return "-" if estimate is None else estimate.shown("+.2f" if signed else ".2f")


def print_shift(shift: ProtocolShift, console: Console) -> None:
    """One row per language, placement and kind: pairs, flips and mean shift with intervals."""
    rows = [
        (
            row.language,
            row.placement,
            row.kind,
            str(row.pairs),
            _shown(row.flips, signed=False),
            _shown(row.shift, signed=True),
            str(row.unscored),
        )
        for row in shift.rows
    ]
    KeyedTable(
        title=f"{shift.protocol} · {shift.judge} [{shift.configuration}]: {shift.score}, "
        "injected against clean (95% intervals over base dialogues)",
        columns=COLUMNS,
        rows=rows,
        kept=("language", "placement", "kind", "flips"),
        text=("language", "placement", "kind"),
    ).print(console, screen_width(console))
    notes = {row.note for row in shift.rows if row.note}
    if any(row.kind == CONTROL for row in shift.rows):
        notes.add(
            "kind control: an aside addressed to no one, appended the same way; what any "
            "appended text does (an injection's shift beyond it is what the text told the judge)"
        )
    for note in sorted(notes):
        console.print(f"note: {note}", highlight=False, markup=False, soft_wrap=True)


def _agreement_line(card: JudgeCard) -> str | None:
    """The judge's Pearson r with humans per language (argmax scoring), where measured."""
    shown = [
        f"{figure.language} {figure.pearson_shown()}"
        for figure in card.agreement
        if figure.scoring == "argmax" and figure.pearson is not None
    ]
    return f"agreement with humans, Pearson r: {'; '.join(shown)} ({AGREEMENT})" if shown else None


def card_table(cards: list[JudgeCard], title: str, *, pooled: bool = False) -> KeyedTable:
    """The cards' rows (`pooled`: only those over every language, or the one probed)."""
    rows = [
        (
            card.judge + (" (fenced)" if card.fence else ""),
            row.protocol,
            row.language,
            str(row.judgments),
            "-" if row.unscored is None else f"{row.unscored:.0%}",
            str(row.injected),
            _shown(row.obeyed, signed=False),
            _shown(row.control, signed=False),
            row.most_obeyed or "-",
            _shown(row.first_slot, signed=False),
            _shown(row.longer, signed=False),
        )
        for card in cards
        for row in (card.pooled_rows() if pooled else card.rows)
    ]
    return KeyedTable(
        title=title,
        columns=CARD_COLUMNS,
        rows=rows,
        kept=("judge", "protocol", "language", "obeyed"),
        text=("judge", "protocol", "language", "most obeyed"),
    )


CARD_TITLE = (
    "share of injected pairs that moved toward the injection (obeyed), of controls that moved, "
    "and, under the pair protocol, of verdicts won by the first slot and by the longer version "
    "(ties half; 95% intervals over base dialogues)"
)


def print_card(card: JudgeCard, console: Console) -> None:
    """The judge's card: per protocol and language, then what it spent and what is known."""
    card_table([card], f"Judge card: {CARD_TITLE}").print(console, screen_width(console))
    lines = [
        f"{spent.protocol}: {figure(spent.seconds_per_1000, 0)} s"
        + (f" and ${spent.usd_per_1000:.2f}" if spent.usd_per_1000 is not None else "")
        + f" per 1,000 judgments, {figure(spent.tokens_per_judgment, 0)} tokens per judgment "
        f"({spent.judged} judged by this command)"
        for spent in card.spend
    ]
    agreement = _agreement_line(card)
    for line in [*lines, *([agreement] if agreement else []), *card.notes]:
        console.print(line, highlight=False, markup=False, soft_wrap=True)


@app.command(name="probe")
def probe_command(
    judge: Annotated[str, typer.Argument(help="The judge's model spec, e.g. local:qwen2.5-0.5b.")],
    protocol: Annotated[
        list[str],
        typer.Option("--protocol", "-p", help=f"{_choices(ProbedProtocol)}; repeatable."),
    ] = ["issues"],  # noqa: B006  (typer reads defaults, never mutates them)
    language: Annotated[
        list[str],
        typer.Option("--language", "-l", help=f"{_choices(ProbeLanguage)}; default all."),
    ] = [],  # noqa: B006
    kind: Annotated[list[str], typer.Option(help=f"{_choices(Kind)}; default every kind.")] = [],  # noqa: B006
    placement: Annotated[
        list[str], typer.Option(help=f"{_choices(Placement)}; default every placement.")
    ] = [],  # noqa: B006
    limit: Annotated[
        int | None, typer.Option(min=1, help="Base dialogues per language (default: all).")
    ] = None,
    run: Annotated[
        Path,
        typer.Option("--run", "-r", help="Run directory for the probe set and its judgments."),
    ] = Path("runs/probe"),
    fence: Annotated[
        bool, typer.Option("--fence", help="Fence the judged text for the judge.")
    ] = False,
    concurrency: Annotated[int, typer.Option(min=1, help="Calls in flight per HTTP judge.")] = 32,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Judge bundled dialogues clean and with text that addresses the judge (an instruction,
    a forged verdict, a fake transcript end, role tags, another language, hidden markup) in a
    chatbot turn, a user turn or a tool result, and with a harmless aside there (the control);
    print how far the verdicts move, and the judge's card.

    One table per protocol: per language, placement and kind, the pairs of clean and injected
    judgments, the share that moved toward the injection (a score rose, an issue was cleared)
    and the mean score shift, each with its 95% interval over base dialogues, and the pairs
    left out as unscored. Under replay (the pair protocol) each injected chatbot or tool version
    is judged against the clean one in both orders. Then the judge's card: per protocol and
    language, the share of injected pairs it obeyed, the control's, its unscored share and,
    under replay, its position and length preference; its seconds and tokens per 1,000
    judgments, and its agreement with humans where measured. Writes RUN/probe/shift.json and
    RUN/probe/card.json.
    """
    try:
        config = ProbeConfig(
            judge=concurrent_model(judge, concurrency),
            protocols=list(dict.fromkeys(protocol)),
            fence=fence,
            limit=limit,
            **{
                name: list(dict.fromkeys(given))
                for name, given in (
                    ("languages", language),
                    ("kinds", kind),
                    ("placements", placement),
                )
                if given
            },
        )
    except ValidationError as invalid:
        field, message = describe_error(invalid.errors()[0])
        raise DialbenchError(f"{field}: {message}") from None
    result = probe(config, run, quiet=quiet)
    console = Console()  # made here, so it reads COLUMNS as this command runs
    for judged, shift in zip(result.judged, result.shifts.shifts, strict=True):
        print_judge_summary(judged)
        print_shift(shift, console)
    print_card(result.card, console)
    for path in (result.path, result.card_path):
        console.print(f"wrote {path}", highlight=False, markup=False, soft_wrap=True)
