"""Commands that move records in and out of a run store, and describe what it holds."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape

from dialbench.cli.app import app
from dialbench.cli.options import (
    DEFAULT_RUN,
    FormatsCommand,
    RunDir,
    RunOption,
    format_option,
    key_value_pairs,
)
from dialbench.cli.terminal_tables import table
from dialbench.errors import DialbenchError, InputError
from dialbench.io.file_format import RECORD_KINDS, PersonalData, RecordKind
from dialbench.io.registry import check_exists, detect_format
from dialbench.store import OnConflict

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID
    from rich.table import Table

    from dialbench.io.importer import ImportOptions
    from dialbench.io.personal_data import RedactionCounts
    from dialbench.store_contents import StoreContents

console = Console()

Records = Annotated[RecordKind, typer.Option(help="Which kind of record.")]
AsJson = Annotated[bool, typer.Option("--json", help="Print the result as JSON, for scripts.")]


def _import_options(
    fmt: str | None,
    records: RecordKind,
    language: str | None,
    source: str | None,
    column: list[str],
    role: list[str],
    dedupe: bool | None,
    personal_data: PersonalData | None,
) -> ImportOptions:
    from dialbench.io.importer import ImportOptions

    return ImportOptions.model_validate(
        {
            "format": fmt,
            "records": records,
            "language": language,
            "source": source,
            "columns": key_value_pairs(column, "--column"),
            "roles": key_value_pairs(role, "--role"),
            "dedupe": dedupe,
            "personal_data": personal_data,
        }
    )


def _passed_over_line(passed_over: dict[str, int]) -> str:
    """What the file held that no record was made of, where there was any."""
    found = [f"{count} {what}" for what, count in passed_over.items()]
    return f"; passed over {', '.join(found)}" if found else ""


def _redaction_line(redacted: RedactionCounts | None) -> str:
    """What redaction replaced, by kind; the values themselves were never kept."""
    if redacted is None:
        return "personal data kept as it is"
    found = [f"{count} {kind}" for kind, count in redacted.model_dump().items() if count]
    return f"personal data redacted: {', '.join(found) or 'none found'}"


FormatOption = Annotated[str | None, format_option(RECORD_KINDS)]
LanguageOption = Annotated[
    str | None, typer.Option(help="BCP-47 language of dialogues that do not name one.")
]
SourceOption = Annotated[str | None, typer.Option(help="Source of dialogues that do not name one.")]
ColumnOption = Annotated[
    list[str],
    typer.Option(help="CSV/TSV: FIELD=COLUMN for fields dialogue_id, role, text, language, model."),
]
RoleOption = Annotated[
    list[str], typer.Option(help="CSV/TSV: LABEL=ROLE, e.g. A=user B=assistant.")
]
DedupeOption = Annotated[
    bool | None,
    typer.Option(
        "--dedupe/--no-dedupe",
        help="Drop a dialogue whose turns are the start of another's in the file (same "
        "language and participants), keeping the longest. Default: on for production logs.",
        show_default=False,
    ),
]

PersonalDataOption = Annotated[
    PersonalData | None,
    typer.Option(
        help="redact: e-mail addresses, phone, card and account numbers and introduced names "
        "become placeholders before anything is stored, counted by kind; keep: text as it is. "
        "Default: redact for production logs, keep for other formats.",
        show_default=False,
    ),
]


class _StepProgress:
    """A bar (a line in a log) per step of long work over records, as it reports them: an
    import's records checked, then stored; a sample's dialogues measured, then copied."""

    def __init__(self, display: Progress) -> None:
        self.display = display
        self.tasks: dict[str, TaskID] = {}

    def __call__(self, step: str, done: int, total: int | None) -> None:
        if step not in self.tasks:
            self.tasks[step] = self.display.add_task(step, total=total)
        self.display.update(self.tasks[step], completed=done)


def _step_display(*, quiet: bool) -> Progress:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from dialbench.llm.progress import progress_display

    return progress_display(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        quiet=quiet,
    )


@app.command("import", cls=FormatsCommand)
def import_command(
    file: Annotated[
        Path, typer.Argument(help="A file or folder in one of the formats of --format.")
    ],
    run: RunOption = DEFAULT_RUN,
    fmt: FormatOption = None,
    records: Records = "dialogues",
    language: LanguageOption = None,
    source: SourceOption = None,
    column: ColumnOption = [],  # noqa: B006  (typer reads defaults, never mutates them)
    role: RoleOption = [],  # noqa: B006
    on_conflict: Annotated[
        OnConflict,
        typer.Option(
            help="When a stored id has different content: fail, keep the stored, or replace."
        ),
    ] = "error",
    dedupe: DedupeOption = None,
    personal_data: PersonalDataOption = None,
    as_json: AsJson = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress on stderr.")] = False,
) -> None:
    """Validate a whole file, then store its records in batches: nothing from a file with
    errors; a killed import, run again, adds the rest. Memory does not grow with the file."""
    check_exists(file)  # before the readers load: a mistyped name is answered at once
    from dialbench.io.importer import import_file
    from dialbench.store import RunStore

    options = _import_options(fmt, records, language, source, column, role, dedupe, personal_data)
    with RunStore.open(run) as store, _step_display(quiet=quiet) as display:
        report = import_file(store, file, options, on_conflict, progress=_StepProgress(display))
    if as_json:
        print(report.model_dump_json())
        return
    console.print(
        f"{report.file}: read {report.read} {report.records} ({report.format}); "
        f"dropped {report.repeats} repeats and {report.prefixes} prefixes of longer dialogues; "
        f"added {report.added}, already present {report.unchanged}, replaced {report.replaced} "
        f"-> {run}; {_redaction_line(report.redacted)}{_passed_over_line(report.passed_over)}",
        markup=False,
    )


@app.command(cls=FormatsCommand)
def validate(
    file: Annotated[Path, typer.Argument(help="The file to check.")],
    fmt: FormatOption = None,
    records: Records = "dialogues",
    language: LanguageOption = None,
    source: SourceOption = None,
    column: ColumnOption = [],  # noqa: B006
    role: RoleOption = [],  # noqa: B006
    dedupe: DedupeOption = None,
    personal_data: PersonalDataOption = None,
) -> None:
    """Check a file as `import` would, without storing anything."""
    check_exists(file)  # before the readers load: a mistyped name is answered at once
    from dialbench.io.importer import check_file

    options = _import_options(fmt, records, language, source, column, role, dedupe, personal_data)
    checked = check_file(file, options)
    console.print(
        f"{file}: {checked.read} valid {options.records}; {checked.repeats.repeats} repeats and "
        f"{checked.repeats.prefixes} prefixes of longer dialogues would be dropped; "
        f"{_redaction_line(checked.redacted)}{_passed_over_line(checked.passed_over)}",
        markup=False,
    )


@app.command("sample")
def sample_command(
    source: Annotated[Path, typer.Argument(help="The run to sample from.")],
    destination: Annotated[Path, typer.Argument(help="The run the sample is copied into.")],
    size: Annotated[int, typer.Option(min=1, help="Dialogues to pick.")] = 2000,
    seed: Annotated[int, typer.Option(help="Same seed and dialogues, same sample.")] = 0,
    length_buckets: Annotated[
        int, typer.Option(min=1, help="Length strata per language, cut at length quantiles.")
    ] = 4,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress on stderr.")] = False,
) -> None:
    """Copy a seeded sample of SOURCE's dialogues, stratified by language and length (words;
    characters for Chinese and Japanese) with their judgments and annotations, into DESTINATION:
    judge, annotate and metaeval work on the sample, `metric score SOURCE` on all."""
    from dialbench.analysis.sampling import SampleConfig, sample_run

    config = SampleConfig(size=size, seed=seed, length_buckets=length_buckets)
    with _step_display(quiet=quiet) as display:
        result = sample_run(source, destination, config, _StepProgress(display))
    rows = [
        (
            s.language,
            str(s.bucket),
            f"{s.shortest}-{s.longest} {s.unit}",
            str(s.dialogues),
            str(s.picked),
        )
        for s in result.strata
    ]
    columns = ("language", "bucket", "length", "dialogues", "picked")
    console.print(table(f"Sample of {source}", columns, rows, text=("language", "length")))
    console.print(
        f"copied {result.dialogues} dialogues, {result.judgments} judgments and "
        f"{result.annotations} annotations -> {destination} (run {result.run_id})",
        markup=False,
    )


def _output_format(output: Path | None, records: RecordKind) -> str:
    """JSONL unless the output's name says otherwise; judgments and annotations can be written
    as ratings too (the long format)."""
    if output is None:
        return "jsonl"
    try:
        return detect_format(output, records).name
    except InputError:
        if output.is_dir():  # no earlier export: the export refuses it as a folder
            return "jsonl"
        if records == "dialogues":
            raise
        return detect_format(output, "ratings").name


@app.command(cls=FormatsCommand)
def export(
    run: RunDir = DEFAULT_RUN,
    fmt: Annotated[str | None, format_option(RECORD_KINDS, writable=True)] = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help="Default: RUN/export/RECORDS.<format>, JSONL unless --format."
        ),
    ] = None,
    records: Records = "dialogues",
    language: Annotated[str | None, typer.Option(help="Only this language.")] = None,
    source: Annotated[str | None, typer.Option(help="Only this source.")] = None,
    protocol: Annotated[
        str | None, typer.Option(help="long-csv: judgments of this protocol only.")
    ] = None,
) -> None:
    """Write stored records as JSONL, Parquet or a Hugging Face dataset folder, or judgments and
    annotations as long-csv: item_id, annotator_or_judge, dimension, value, language, kind."""
    from dialbench.io.exporter import counted, default_export_path, export_records

    fmt = fmt or _output_format(output, records)
    where = {k: v for k, v in (("language", language), ("source", source)) if v is not None}
    what = counted(fmt, records)
    if where and (records != "dialogues" or what == "rows"):
        raise DialbenchError("--language and --source filter dialogues only")
    if protocol is not None and what != "rows":
        raise DialbenchError(f"--protocol applies to formats of ratings only, not {fmt}")
    from dialbench.store import RunStore

    with RunStore.open(run, create=False) as store:
        path = output or default_export_path(store, fmt, records)
        count = export_records(store, path, fmt, records, protocol, **where)
    console.print(f"wrote {count} {what} to {path}", markup=False)


SHOWN_ROWS = 12


def _counts_table(title: str, counts: dict[str, int], total: int) -> Table:
    """Largest counts first; past SHOWN_ROWS the rest are folded into one line."""
    rows = list(counts.items())
    shown = [(key, str(n), f"{n / total:.1%}") for key, n in rows[:SHOWN_ROWS]]
    if len(rows) > SHOWN_ROWS:
        rest = sum(n for _, n in rows[SHOWN_ROWS:])
        shown.append((f"({len(rows) - SHOWN_ROWS} more)", str(rest), f"{rest / total:.1%}"))
    key = title.split(" by ")[-1]
    return table(title, (key, "count", "share"), shown, text=(key,))


def _print_contents(contents: StoreContents) -> None:
    console.print(f"[bold]{escape(contents.path)}[/] (schema v{contents.schema_version})")
    runs = ", ".join(f"{n} {kind}" for kind, n in contents.runs.items()) or "none"
    console.print(f"runs: {runs}", markup=False)
    console.print(
        f"computed on: {'; '.join(contents.processors) or 'none'}", markup=False, soft_wrap=True
    )
    if contents.imports_by_personal_data:
        found = ", ".join(f"{n} {kind}" for kind, n in contents.redacted.items()) or "none found"
        modes = contents.imports_by_personal_data
        console.print(
            f"personal data: redacted by {modes.get('redact', 0)} import(s) ({found}), "
            f"kept as it is by {modes.get('keep', 0)}",
            markup=False,
        )
    console.print(f"dialogues: {contents.dialogues}, turns: {contents.turns}")
    for title, counts in (
        ("dialogues by language", contents.by_language),
        ("dialogues by source", contents.by_source),
        ("dialogues by user model", contents.by_user_model),
        ("dialogues by chatbot model", contents.by_chatbot_model),
    ):
        if counts:
            console.print(_counts_table(title, counts, contents.dialogues))
    if contents.judgments:
        rows = [
            (
                j.protocol,
                j.judge_model,
                str(j.ok),
                str(j.unscored),
                f"{j.unscored / (j.ok + j.unscored):.1%}",
            )
            for j in contents.judgments
        ]
        columns = ("protocol", "judge", "ok", "unscored", "unscored rate")
        console.print(table("judgments by protocol", columns, rows, text=("protocol", "judge")))
    else:
        console.print("judgments: none")
    annotated = sum(contents.annotations_by_annotator.values())
    if annotated:
        console.print(
            _counts_table("annotations by annotator", contents.annotations_by_annotator, annotated)
        )
    else:
        console.print("annotations: none")
    for sample in contents.audit_samples:
        console.print(
            f"audit sample {sample.name}: {sample.labelled} of {sample.dialogues} dialogues "
            "labelled (corrected figures: dialbench stats, dialbench report)",
            markup=False,
        )


@app.command()
def show(run: RunDir = DEFAULT_RUN, as_json: AsJson = False) -> None:
    """Summarise a run: dialogues by language, source and model; judgments by protocol."""
    from dialbench.store import RunStore
    from dialbench.store_contents import count_contents

    with RunStore.open(run, create=False) as store:
        contents = count_contents(store)
    if as_json:
        print(contents.model_dump_json(indent=2))
    else:
        _print_contents(contents)


@app.command("examples")
def examples_command(
    name: Annotated[str | None, typer.Argument(help="Print only this example's path.")] = None,
) -> None:
    """List the example files bundled with dialbench (paths to pass to `import`)."""
    from dialbench import examples

    bundled = examples.bundled()
    if name is None:
        for known, path in bundled.items():
            print(f"{known}\t{path}")
    elif name in bundled:
        print(bundled[name])
    else:
        raise DialbenchError(f"no bundled example {name!r} (have: {', '.join(bundled)})")
