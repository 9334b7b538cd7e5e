"""The table of file formats: a new format is one definition plus one registry line, and a file's
format follows from its name and from what is being read."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dialbench.cli import app
from dialbench.errors import InputError
from dialbench.io.file_format import Content, FileFormat, Item, ReadRequest
from dialbench.io.importer import ImportOptions, import_file
from dialbench.io.registry import FORMATS, detect_format
from dialbench.schema import Dialogue
from dialbench.store import RunStore
from tests.conftest import Register


def read_chat_lines(path: Path, request: ReadRequest) -> Iterator[Item]:
    """One dialogue per line, its turns separated by ` | `, the user speaking first."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        turns = [
            {"role": ("user", "assistant")[i % 2], "text": text.strip()}
            for i, text in enumerate(line.split(" | "))
        ]
        yield number, {"turns": turns}


CHAT_LINES = FileFormat(
    "chat-lines",
    "one dialogue per line",
    holds=("dialogues",),
    read=read_chat_lines,
    suffixes=(".chat",),
)


@pytest.fixture
def chats(tmp_path: Path, register: Register) -> Path:
    register(FORMATS, "chat-lines", CHAT_LINES)
    path = tmp_path / "two.chat"
    path.write_text("Hallo! | Guten Tag.\nWie spät ist es? | Drei Uhr. | Danke!\n", "utf-8")
    return path


def test_a_new_format_imports_through_the_python_api(chats: Path, tmp_path: Path) -> None:
    with RunStore.open(tmp_path / "run") as store:
        report = import_file(store, chats, ImportOptions(language="de"))
        dialogues = list(store.records(Dialogue))
    assert (report.format, report.added) == ("chat-lines", 2)
    assert [[t.role for t in d.turns] for d in dialogues] == [
        ["user", "assistant"],
        ["user", "assistant", "user"],
    ]
    assert dialogues[0].provenance is not None
    assert dialogues[0].provenance.source_line == 1


def test_a_new_format_is_a_choice_of_validate_and_import(chats: Path, tmp_path: Path) -> None:
    """In process: a format registered by a test (not through an entry point) does not reach a
    subprocess, but the command line reads its --format choices when the option is used."""
    runner = CliRunner()
    validated = runner.invoke(app, ["validate", str(chats), "--language", "de"])
    assert validated.exit_code == 0, validated.output
    assert "2 valid dialogues" in " ".join(validated.output.split())
    renamed = chats.rename(tmp_path / "two.lines")
    run = ["--run", str(tmp_path / "run"), "--language", "de", "--json"]
    imported = runner.invoke(app, ["import", str(renamed), "--format", "chat-lines", *run])
    assert imported.exit_code == 0, imported.output
    assert json.loads(imported.stdout)["added"] == 2


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("a.json", "dialogues", "jsonl"),
        ("a.json", "ratings", "abc-eval"),
        ("a.jsonl", "annotations", "jsonl"),
        ("a.jsonl", "ratings", "long-jsonl"),
        ("a.csv", "dialogues", "csv"),
        ("a.csv", "annotations", "long-csv"),
        ("a.long.csv", "ratings", "long-csv"),
        ("A.TSV", "texts", "tsv"),
        ("a.txt", "texts", "txt"),
        ("a.zip", "annotations", "dbdc3"),
    ],
)
def test_the_format_follows_the_name_and_what_is_read(
    name: str, content: Content, expected: str
) -> None:
    assert detect_format(Path(name), content).name == expected


def test_an_unknown_type_lists_the_known_ones_for_what_is_read() -> None:
    with pytest.raises(InputError) as ratings:
        detect_format(Path("scores.xlsx"), "ratings")
    assert str(ratings.value) == (
        "scores.xlsx: unknown file type '.xlsx' for ratings "
        "(known: .csv, .json, .jsonl, .long.csv, .ndjson, .tab, .tsv)"
    )
    with pytest.raises(InputError, match=r"for judgments \(known: .*\.parquet.*; pass --format"):
        detect_format(Path("judged.csv"), "judgments")


def test_folders_are_told_apart_by_what_they_hold(tmp_path: Path) -> None:
    (tmp_path / "saved").mkdir()
    (tmp_path / "saved" / "dataset_info.json").write_text("{}")
    assert detect_format(tmp_path / "saved", "judgments").name == "hf"
    with pytest.raises(InputError, match="is a folder, but not a saved Hugging Face dataset"):
        detect_format(tmp_path, "judgments")


def test_every_format_is_registered_under_its_own_name() -> None:
    assert all(fmt.name == name for name, fmt in FORMATS.items())


def test_detecting_a_format_imports_no_heavy_library() -> None:
    """Readers of xlsx, Parquet and datasets import their library when they read, not before."""
    script = (
        "import sys; from pathlib import Path; from dialbench.io.registry import detect_format; "
        "[detect_format(Path('x' + s), 'dialogues') for s in ('.xlsx', '.parquet', '.jsonl')]; "
        "print(sorted({'openpyxl', 'pyarrow', 'pandas', 'datasets'} & set(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"
