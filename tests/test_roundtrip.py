"""Import -> store -> export loses nothing, for generated records and for the real data files."""

from __future__ import annotations

import io
import json
import tempfile
from pathlib import Path

import pyarrow.parquet as pq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from dialbench.cli import app
from dialbench.io.exporter import export_records
from dialbench.io.importer import ImportOptions, import_file, load_records
from dialbench.io.jsonl import write_jsonl
from dialbench.schema import Dialogue, StoredRecord
from dialbench.store import RunStore
from tests import strategies
from tests.conftest import CSV_MAPPING, RunCli
from tests.tool_dialogues import TOOL_DIALOGUES
from tests.tool_dialogues import write_jsonl as write_tool_jsonl

record_lists = st.one_of(
    st.lists(strategies.dialogues, min_size=1, max_size=4, unique_by=lambda d: d.id),
    st.lists(strategies.judgments, min_size=1, max_size=4, unique_by=lambda j: j.id),
    st.lists(strategies.annotations, min_size=1, max_size=4, unique_by=lambda a: a.id),
)
KIND = {"Dialogue": "dialogues", "Judgment": "judgments", "Annotation": "annotations"}
SLOW_EXAMPLES = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@given(record_lists)
@settings(deadline=None)
def test_jsonl_round_trips_every_field(records: list[StoredRecord]) -> None:
    buffer = io.StringIO()
    write_jsonl(records, buffer)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "records.jsonl"
        path.write_text(buffer.getvalue(), encoding="utf-8")
        kind = KIND[type(records[0]).__name__]
        loaded = load_records(path, ImportOptions(records=kind))  # type: ignore[arg-type]
    assert [record for _, record in loaded] == records


@given(record_lists, st.sampled_from(["jsonl", "parquet", "hf"]))
@SLOW_EXAMPLES
def test_store_and_every_export_format_round_trip(records: list[StoredRecord], fmt: str) -> None:
    kind = KIND[type(records[0]).__name__]
    with tempfile.TemporaryDirectory() as folder:
        with RunStore.open(Path(folder) / "a") as store, store.invocation("test") as run:
            store.add(records, run)
            assert list(store.records(type(records[0]))) == records
            out = Path(folder) / f"out.{fmt}"
            assert export_records(store, out, fmt, kind) == len(records)  # type: ignore[arg-type]
        with RunStore.open(Path(folder) / "b") as again:
            import_file(again, out, ImportOptions(format=fmt, records=kind))  # type: ignore[arg-type]
            reread = list(again.records(type(records[0])))
    untraced = [
        r.model_copy(update={"provenance": None}) if hasattr(r, "provenance") else r for r in reread
    ]
    expected = [
        r.model_copy(update={"provenance": None}) if hasattr(r, "provenance") else r
        for r in records
    ]
    assert untraced == expected
    for original, back in zip(records, reread, strict=True):
        if getattr(original, "provenance", None) is not None:
            assert back == original


def _export_lines(cli: RunCli, run: Path, out: Path) -> list[dict[str, object]]:
    cli("export", run, "--format", "jsonl", "--output", out)
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def test_bundled_example_round_trips_through_the_cli(
    cli: RunCli, tmp_path: Path, example_jsonl: Path
) -> None:
    imported = cli("import", example_jsonl, "--run", tmp_path / "a", "--json")
    assert json.loads(imported.stdout)["added"] == 13
    shown = json.loads(cli("show", tmp_path / "a", "--json").stdout)
    assert shown["dialogues"] == 13
    assert {"en", "zh", "de", "fr", "pt", "pt-BR", "es", "ja"} == set(shown["by_language"])
    first = _export_lines(cli, tmp_path / "a", tmp_path / "a.jsonl")
    for fmt in ("parquet", "hf"):
        cli("export", tmp_path / "a", "--format", fmt, "--output", tmp_path / f"a.{fmt}")
        cli("import", tmp_path / f"a.{fmt}", "--format", fmt, "--run", tmp_path / fmt)
        assert _export_lines(cli, tmp_path / fmt, tmp_path / f"{fmt}.jsonl") == first
    source_lines = example_jsonl.read_text(encoding="utf-8").splitlines()
    for line, record in zip(source_lines, first, strict=True):
        original = Dialogue.model_validate_json(line)
        assert Dialogue.model_validate(record).model_copy(update={"provenance": None}) == original


def test_mutual_chatseeds_round_trip_through_the_cli(
    cli: RunCli, tmp_path: Path, mutual_xlsx: Path
) -> None:
    cli("import", mutual_xlsx, "--run", tmp_path / "a")
    again = json.loads(cli("import", mutual_xlsx, "--run", tmp_path / "a", "--json").stdout)
    assert (again["added"], again["unchanged"]) == (0, 547)
    shown = json.loads(cli("show", tmp_path / "a", "--json").stdout)
    assert shown["by_source"] == {"mutual": 547}
    exported = _export_lines(cli, tmp_path / "a", tmp_path / "a.jsonl")
    first = Dialogue.model_validate(exported[0])
    assert first.id == "mutual:MT-1"
    assert first.seed is not None
    assert first.seed.chatseed == [
        "You look rather pale. Are you feeling well?",
        "Not very. I was sick most of the night. I didn't sleep very well.",
    ]
    assert [t.role for t in first.turns] == ["user", "assistant", "user", "assistant"]
    assert first.metadata == {"mutual_index": "MT-1", "nround": 4}
    cli("import", tmp_path / "a.jsonl", "--run", tmp_path / "b")
    assert _export_lines(cli, tmp_path / "b", tmp_path / "b.jsonl") == exported


def test_csv_with_a_column_mapping(cli: RunCli, tmp_path: Path) -> None:
    from dialbench import examples

    mapping = [*CSV_MAPPING, "--column", "language=lang"]
    cli("import", examples.bundled()["speaker_turns"], *mapping, "--run", tmp_path / "a")
    dialogues = {d["id"]: d for d in _export_lines(cli, tmp_path / "a", tmp_path / "a.jsonl")}
    assert set(dialogues) == {"c1", "c2"}
    assert dialogues["c2"]["language"] == "es"
    assert [t["role"] for t in dialogues["c2"]["turns"]] == ["user", "assistant", "user"]


def test_plain_turns_files_take_defaults_from_options(cli: RunCli, tmp_path: Path) -> None:
    path = tmp_path / "mine.jsonl"
    path.write_text('{"turns": [{"role": "user", "text": "Bonjour !"}]}\n', encoding="utf-8")
    cli("import", path, "--language", "fr", "--source", "hand-written", "--run", tmp_path / "a")
    [record] = _export_lines(cli, tmp_path / "a", tmp_path / "a.jsonl")
    assert (record["language"], record["source"]) == ("fr", "hand-written")
    provenance = record["provenance"]
    assert isinstance(provenance, dict)
    assert (provenance["source_file"], provenance["source_line"]) == (str(path), 1)


def test_tool_turns_round_trip_through_jsonl_and_parquet_with_the_call_as_a_column(
    tmp_path: Path,
) -> None:
    def invoke(*args: str | Path) -> str:
        done = CliRunner().invoke(app, [str(arg) for arg in args])
        assert done.exit_code == 0, done.output
        return done.output

    invoke("import", write_tool_jsonl(tmp_path / "tools.jsonl"), "--run", tmp_path / "a")
    invoke("export", tmp_path / "a", "--format", "jsonl", "--output", tmp_path / "a.jsonl")
    first = tmp_path.joinpath("a.jsonl").read_text(encoding="utf-8")
    exported = [Dialogue.model_validate_json(line) for line in first.splitlines()]
    assert [d.model_copy(update={"provenance": None}) for d in exported] == list(TOOL_DIALOGUES)
    invoke("import", tmp_path / "a.jsonl", "--run", tmp_path / "b")
    invoke("export", tmp_path / "b", "--format", "parquet", "--output", tmp_path / "b.parquet")
    turns = pq.read_table(tmp_path / "b.parquet").column("turns").to_pylist()
    calls = [turn["tool"] for dialogue in turns for turn in dialogue if turn["tool"] is not None]
    assert calls == [
        {
            "name": "weather",
            "arguments": '{"city": "Lisbon"}',
            "call_id": "call_1",
            "kind": "function",
        },
        {
            "name": "weather",
            "arguments": '{"city": "北京"}',
            "call_id": "call_7",
            "kind": "function",
        },
        {
            "name": "kb_search",
            "arguments": '{"query": "北京 空气质量"}',
            "call_id": None,
            "kind": "retrieval",
        },
    ]
    invoke("import", tmp_path / "b.parquet", "--run", tmp_path / "c")
    invoke("export", tmp_path / "c", "--format", "jsonl", "--output", tmp_path / "c.jsonl")
    assert tmp_path.joinpath("c.jsonl").read_text(encoding="utf-8") == first
