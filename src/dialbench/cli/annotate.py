"""`dialbench annotate`: annotators for the web app, and their labels in and out of a run."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from dialbench.cli.app import app
from dialbench.cli.options import DEFAULT_RUN, FormatsCommand, RunOption, format_option
from dialbench.cli.terminal_tables import table
from dialbench.io.exporter import counted, export_records
from dialbench.io.registry import detect_format
from dialbench.schema import Annotator
from dialbench.store import RunStore

annotate_app = typer.Typer(
    help="Annotators of a benchmark, reviewers of a judge, and their labels.", no_args_is_help=True
)
app.add_typer(annotate_app, name="annotate")
console = Console()


@annotate_app.command("add")
def add(
    name: Annotated[str, typer.Argument(help="The annotator's name (letters, digits, . _ @ -).")],
    languages: Annotated[str, typer.Option(help="Comma-separated, e.g. pt,en.")],
    benchmark: Annotated[
        str | None,
        typer.Option(
            help="The benchmark they label; without it they only review a judge's verdicts "
            "(serve --review) on the dialogues it judged in their languages."
        ),
    ] = None,
    run: RunOption = DEFAULT_RUN,
) -> None:
    """Create an annotator (or a reviewer) and print their secret link (shown once: only its
    hash is kept)."""
    from dialbench.web.annotators import add_annotator

    tags = [tag.strip() for tag in languages.split(",") if tag.strip()]
    with RunStore.open(run, create=False) as store:
        made = add_annotator(store, name, benchmark, tags)
    task = f"benchmark {benchmark}" if benchmark else "reviews a judge's verdicts (serve --review)"
    console.print(
        f"annotator {made.annotator.name}: {task}, languages {', '.join(made.annotator.languages)}",
        markup=False,
    )
    _print_link(made.token)


def _print_link(token: str) -> None:
    print(f"secret link: http://127.0.0.1:8765/enter?token={token}")
    console.print(
        "(give it to them privately; with another --host or --port, change the address)",
        markup=False,
    )


NameArgument = Annotated[str, typer.Argument(help="The annotator's name.")]


@annotate_app.command("revoke")
def revoke(name: NameArgument, run: RunOption = DEFAULT_RUN) -> None:
    """End an annotator's link at once, in a running server too; their labels stay."""
    from dialbench.web.annotators import revoke_annotator

    with RunStore.open(run, create=False) as store:
        revoke_annotator(store, name)
    console.print(
        f"revoked {name}'s link: it opens nothing from now on (a new one: "
        f"dialbench annotate reissue {name})",
        markup=False,
    )


@annotate_app.command("reissue")
def reissue(name: NameArgument, run: RunOption = DEFAULT_RUN) -> None:
    """A new secret link for an annotator (revoked or not); the old one is dead at once."""
    from dialbench.web.annotators import reissue_link

    with RunStore.open(run, create=False) as store:
        made = reissue_link(store, name)
    console.print(f"annotator {name}: new link (the old one opens nothing now)", markup=False)
    _print_link(made.token)


@annotate_app.command("list")
def list_annotators(run: RunOption = DEFAULT_RUN) -> None:
    """The run's annotators: benchmark (or reviewer), languages, whether their link works,
    last label saved."""
    with RunStore.open(run, create=False) as store:
        last = store.last_annotated()
        rows = [
            (
                a.name,
                a.benchmark or "- (reviewer)",
                ", ".join(a.languages),
                "revoked" if a.revoked_at else "active",
                last.get(a.name, "-")[:19].replace("T", " "),
            )
            for a in store.records(Annotator)
        ]
    columns = ("annotator", "benchmark", "languages", "link", "last label (UTC)")
    console.print(table("Annotators", columns, rows, text=columns[:4]))


@annotate_app.command("export", cls=FormatsCommand)
def export(
    output: Annotated[Path, typer.Argument(help="File to write (.jsonl, .csv, ...).")],
    run: RunOption = DEFAULT_RUN,
    fmt: Annotated[str | None, format_option(["annotations"], writable=True)] = None,
) -> None:
    """Write every label: JSONL Annotation records, or the long CSV `metaeval --against` reads
    (the format from --format, else from the name)."""
    with RunStore.open(run, create=False) as store:
        chosen = fmt or detect_format(output, "annotations").name
        count = export_records(store, output, chosen, "annotations")
    console.print(f"wrote {count} {counted(chosen, 'annotations')} to {output}", markup=False)


@annotate_app.command("import", cls=FormatsCommand)
def import_labels_command(
    file: Annotated[Path, typer.Argument(help="Labels made elsewhere (.jsonl, .csv, ...).")],
    run: RunOption = DEFAULT_RUN,
    fmt: Annotated[str | None, format_option(["annotations"])] = None,
) -> None:
    """Store labels in the shape `export` writes; one per annotator and item replaces the old."""
    from dialbench.web.annotators import import_labels

    with RunStore.open(run, create=False) as store:
        count = import_labels(store, file, fmt)
    console.print(f"imported {count} annotations from {file} into {run}", markup=False)
