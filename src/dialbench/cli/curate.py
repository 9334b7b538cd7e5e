"""`dialbench curate`: a small balanced benchmark per language for human annotation."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.console import Console

from dialbench.cli.app import app
from dialbench.cli.options import DEFAULT_RUN, RunDir
from dialbench.cli.terminal_tables import table
from dialbench.errors import DialbenchError
from dialbench.io.validation import describe_error
from dialbench.schema import Benchmark
from dialbench.store import RunStore

console = Console()


def _print_benchmarks(run: Path) -> None:
    with RunStore.open(run, create=False) as store:
        benchmarks = list(store.records(Benchmark))
    if not benchmarks:
        console.print(f"no benchmarks in {run} yet", highlight=False, markup=False)
        return
    rows = [
        [
            b.name,
            ", ".join(sorted({item.language for item in b.items})),
            str(len(b.items)),
            str(b.settings.get("judge", "")),
            str(b.settings.get("seed", "")),
        ]
        for b in benchmarks
    ]
    columns = ["benchmark", "languages", "dialogues", "judge", "seed"]
    console.print(table(f"Benchmarks in {run}", columns, rows, text={*columns[:2], "judge"}))


@app.command(name="curate")
def curate_command(
    run: RunDir = DEFAULT_RUN,
    name: Annotated[
        str | None,
        typer.Option("--name", "-n", help="The benchmark's name (letters, digits, _.-)."),
    ] = None,
    judge: Annotated[
        str | None,
        typer.Option(
            "--judge",
            "-j",
            help="Issues judge to curate from: SPEC, or 'SPEC \\[c-…]' where it judged under "
            "several configurations. Default: the only one.",
        ),
    ] = None,
    per_language: Annotated[int, typer.Option(min=1, help="Dialogues per language.")] = 100,
    seed: Annotated[int, typer.Option(help="Seed of the tie-breaking RNG.")] = 0,
    language: Annotated[
        list[str], typer.Option(help="Only this language; repeat for several.")
    ] = [],  # noqa: B006  (typer reads defaults, never mutates them)
    keywords: Annotated[
        Path | None,
        typer.Option(
            help="YAML keyword list for the mixed-language exclusion (default: packaged)."
        ),
    ] = None,
    list_benchmarks: Annotated[
        bool, typer.Option("--list", help="List the run's benchmarks and stop.")
    ] = False,
) -> None:
    """Exclude dialogues the judge found mixed-language, then pick per language one issue-free,
    top-scored dialogue per user x chatbot pair and, issue by issue, dialogues that balance the
    overall scores and chatbots. Same arguments, same benchmark; writes RUN/benchmarks/NAME/."""
    if list_benchmarks:
        _print_benchmarks(run)
        return
    if name is None:
        raise DialbenchError("name the benchmark with --name (or list them with --list)")
    from dialbench.curate.api import curate, outcome_frame  # pandas, matplotlib
    from dialbench.curate.config import CurateConfig

    try:
        config = CurateConfig(
            benchmark=name,
            judge=judge,
            per_language=per_language,
            seed=seed,
            languages=language,
            keywords=keywords,
        )
    except ValidationError as invalid:
        field, message = describe_error(invalid.errors()[0])
        raise DialbenchError(f"{field}: {message}") from None
    result = curate(config, run)
    frame = outcome_frame(result.languages)
    text = {"language", "left out", "relaxed"}
    title = f"Benchmark {result.benchmark.name} ({result.benchmark.settings['judge']})"
    rows = frame.astype(str).to_numpy().tolist()
    console.print(table(title, list(frame.columns), rows, text=text))
    for note in result.notes:
        console.print(f"note: {note}", highlight=False, markup=False)
    console.print(
        f"{result.stored}: {len(result.benchmark.items)} dialogue(s); wrote {result.folder}",
        highlight=False,
        markup=False,
    )
