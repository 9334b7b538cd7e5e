"""Every bad input gets a clear, located message, a non-zero exit, no traceback, and no writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dialbench.schema import Dialogue
from dialbench.store import RunStore
from tests.conftest import CSV_MAPPING, RunCli

GOOD = {"language": "en", "turns": [{"role": "user", "text": "hi"}]}


def jsonl(path: Path, *lines: object) -> Path:
    path.write_text("".join((json.dumps(x) if not isinstance(x, str) else x) + "\n" for x in lines))
    return path


def fails(cli: RunCli, *args: str | Path) -> str:
    done = cli(*args, ok=False)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    return done.stderr


def stored(run: Path) -> int:
    if not run.exists():
        return 0
    with RunStore.open(run) as store:
        return store.count(Dialogue)


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (["{not json"], "bad.jsonl:2: invalid JSON: Expecting property name"),
        (
            [{"language": "en", "turns": []}],
            "bad.jsonl:2: field 'turns': a dialogue needs at least one turn",
        ),
        (
            [{"language": "en", "turns": [{"role": "bot", "text": "x"}]}],
            "bad.jsonl:2: field 'turns.0.role': "
            "Input should be 'user', 'assistant' or 'tool' (got 'bot')",
        ),
        ([{"language": "klingon", "turns": GOOD["turns"]}], "bad.jsonl:2: field 'language'"),
        ([{"turns": GOOD["turns"]}], "bad.jsonl:2: field 'language': Field required"),
        (
            [{"language": "en", "turns": [{"role": "user", "txt": "hi"}]}],
            "bad.jsonl:2: field 'turns.0.txt': Extra inputs are not permitted",
        ),
        (["[1, 2]"], "bad.jsonl:2: expected a JSON object, got list"),
    ],
)
def test_a_bad_line_names_file_line_and_field_and_nothing_is_written(
    cli: RunCli, tmp_path: Path, lines: list[object], expected: str
) -> None:
    bad = jsonl(tmp_path / "bad.jsonl", GOOD, *lines)
    message = fails(cli, "import", bad, "--run", tmp_path / "run")
    assert expected in message
    assert "nothing was imported" in message
    assert stored(tmp_path / "run") == 0


def test_all_problems_are_listed_together(cli: RunCli, tmp_path: Path) -> None:
    bad = jsonl(tmp_path / "bad.jsonl", "{", GOOD, {"language": "en", "turns": []}, "nope")
    message = fails(cli, "validate", bad)
    assert "3 problem(s)" in message, message
    assert all(f"bad.jsonl:{n}:" in message for n in (1, 3, 4))


def test_empty_file(cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_text("\n\n")
    assert "the file is empty" in fails(cli, "import", tmp_path / "empty.jsonl")


def test_non_utf8_file(cli: RunCli, tmp_path: Path) -> None:
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(
        json.dumps(GOOD).encode()
        + b'\n{"language": "fr", "turns": [{"role": "user", "text": "d\xe9j\xe0"}]}\n'
    )
    message = fails(cli, "import", path, "--run", tmp_path / "run")
    assert "latin1.jsonl:2: not valid UTF-8 (byte 0xe9 at column 57)" in message
    assert stored(tmp_path / "run") == 0


def test_a_50_mb_line_is_refused_without_reading_it_whole(cli: RunCli, tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl"
    with path.open("w") as stream:
        stream.write(json.dumps(GOOD) + "\n")
        stream.write(
            '{"language": "en", "turns": [{"role": "user", "text": "' + "x" * 50_000_000 + '"}]}\n'
        )
        stream.write(json.dumps(GOOD) + "\n")
    message = fails(cli, "import", path, "--run", tmp_path / "run")
    assert "huge.jsonl:2: line is 50,000,060 bytes, over the 16,777,216-byte limit" in message
    assert stored(tmp_path / "run") == 0


def test_missing_and_unknown_files(cli: RunCli, tmp_path: Path) -> None:
    assert "nope.jsonl: no such file" in fails(cli, "import", tmp_path / "nope.jsonl")
    (tmp_path / "data.txt").write_text("hello")
    assert "unknown file type '.txt'" in fails(cli, "import", tmp_path / "data.txt")


def test_csv_problems_are_located(cli: RunCli, tmp_path: Path) -> None:
    path = tmp_path / "turns.csv"
    path.write_text("conv,speaker,utterance\nc1,A,hello\nc1,C,who?\nc1,B\n")
    no_column = fails(cli, "import", path)
    assert "turns.csv:1: no column 'dialogue_id' for field 'dialogue_id'" in no_column
    message = fails(
        cli, "import", path, *CSV_MAPPING, "--language", "en", "--run", tmp_path / "run"
    )
    assert "turns.csv:3: field 'speaker': unknown role 'C'" in message
    assert "turns.csv:4: 2 cells, but the header has 3" in message
    assert stored(tmp_path / "run") == 0


def test_xlsx_without_the_mutual_columns(cli: RunCli, tmp_path: Path) -> None:
    import openpyxl

    book = openpyxl.Workbook()
    book.active.append(["id", "dialogue"])
    book.active.append(["1", '["a", "b"]'])
    book.save(tmp_path / "other.xlsx")
    assert "missing column(s) ['index', 'conv-GT']" in fails(cli, "import", tmp_path / "other.xlsx")
    (tmp_path / "fake.xlsx").write_text("plain text")
    assert "not a readable .xlsx workbook" in fails(cli, "import", tmp_path / "fake.xlsx")


def test_bad_options(cli: RunCli, tmp_path: Path) -> None:
    path = jsonl(tmp_path / "ok.jsonl", {"turns": GOOD["turns"]})
    assert "BCP-47" in fails(cli, "import", path, "--language", "elvish")
    assert "KEY=VALUE" in fails(cli, "import", path, "--column", "text")
    assert "Invalid value" in fails(cli, "import", path, "--format", "docx")


def test_commands_on_a_missing_or_empty_run(cli: RunCli, tmp_path: Path) -> None:
    assert "no dialbench run store" in fails(cli, "show", tmp_path / "nowhere")
    RunStore.open(tmp_path / "empty").close()
    assert "no dialogues to export" in fails(cli, "export", tmp_path / "empty")


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            '{"language": "en", "turns": [{"role": "user", "text": "hi"}], "metadata": {"x": NaN}}',
            "bad.jsonl:2: field 'metadata.x': not a finite number",
        ),
        (
            '{"language": "en", "turns": [{"role": "user", "text": "hi"}], '
            '"metadata": {"w": [1, 1e999999]}}',
            "bad.jsonl:2: field 'metadata.w.1': not a finite number",
        ),
        (
            '{"language": "en", "language": "de", "turns": [{"role": "user", "text": "hi"}]}',
            "bad.jsonl:2: field 'language': the key appears more than once",
        ),
        (
            '{"language": "en", "turns": [{"role": "user", "text": "a", "text": "b"}]}',
            "bad.jsonl:2: field 'turns.0.text': the key appears more than once",
        ),
    ],
)
def test_values_json_would_change_silently_are_refused(
    cli: RunCli, tmp_path: Path, line: str, expected: str
) -> None:
    bad = jsonl(tmp_path / "bad.jsonl", GOOD, line)
    assert expected in fails(cli, "validate", bad)
    assert expected in fails(cli, "import", bad, "--run", tmp_path / "run")
    assert stored(tmp_path / "run") == 0


@pytest.mark.parametrize("on_conflict", ["error", "keep", "replace"])
def test_one_id_twice_in_a_file_names_both_lines(
    cli: RunCli, tmp_path: Path, on_conflict: str
) -> None:
    same_id = [{**GOOD, "id": "d-1", "turns": [{"role": "user", "text": t}]} for t in "ab"]
    bad = jsonl(tmp_path / "bad.jsonl", GOOD, *same_id)
    expected = "bad.jsonl:3: field 'id': id 'd-1' is also used by line 2, with different content"
    assert expected in fails(cli, "validate", bad)
    imported = fails(cli, "import", bad, "--run", tmp_path / "run", "--on-conflict", on_conflict)
    assert expected in imported
    assert stored(tmp_path / "run") == 0


def test_an_identical_repeat_in_a_file_is_stored_once(cli: RunCli, tmp_path: Path) -> None:
    twice = jsonl(tmp_path / "twice.jsonl", {**GOOD, "id": "d-1"}, {**GOOD, "id": "d-1"})
    assert "2 valid dialogues" in " ".join(cli("validate", twice).stdout.split())
    cli("import", twice, "--run", tmp_path / "run")
    assert stored(tmp_path / "run") == 1


def test_a_rejected_import_leaves_no_run_behind(cli: RunCli, tmp_path: Path) -> None:
    run = tmp_path / "run"
    cli("import", jsonl(tmp_path / "a.jsonl", {**GOOD, "id": "d-1"}), "--run", run)
    other = {**GOOD, "id": "d-1", "turns": [{"role": "user", "text": "changed"}]}
    assert "already stored with different content" in fails(
        cli, "import", jsonl(tmp_path / "b.jsonl", other), "--run", run
    )
    with RunStore.open(run) as store:
        assert [(r.command, r.status) for r in store.invocations()] == [("import", "finished")]


@pytest.mark.parametrize(
    "source", ["[/]", "[bold red]red[/]", "[link=https://evil.example]click[/link]", "a[/b"]
)
def test_show_prints_names_as_they_are_never_as_markup(
    cli: RunCli, tmp_path: Path, source: str
) -> None:
    cli("import", jsonl(tmp_path / "d.jsonl", {**GOOD, "source": source}), "--run", "run")
    done = cli("show", "run")
    assert "Traceback" not in done.stderr
    assert source in done.stdout
