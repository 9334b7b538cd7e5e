"""The four trace readers (OpenAI chat logs, OpenTelemetry GenAI, Langfuse, LangSmith) through
their one driver: what each bundled example imports is pinned by hash (dialogue ids, turns,
source lines, redaction counts), so a change to the driver that moves a dialogue shows; and each
reader refuses the same bad files the same way."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from dialbench import examples
from dialbench.errors import InputError
from dialbench.hashing import canonical_json
from dialbench.io.file_format import ReadRequest
from dialbench.io.importer import import_file
from dialbench.io.registry import read_items
from dialbench.schema import Dialogue
from dialbench.store import RunStore

BUNDLED = examples.bundled()
# Example -> the sha256 of what its import stores (see `imported`), and what it redacted.
PINNED = {
    "openai_chat_log": (
        "849d0ffc494bfa54e3cd60fd9bcd7ade885ee92557ed372d3c3152985cdb3767",
        {"email": 6, "phone": 3, "card": 1, "account": 1, "name": 5},
    ),
    # Moved on purpose: the reply that only calls a tool names its model (the trace's dialogue
    # now says who answered), and "Claire Dubois" in a tool's arguments after "je suis Claire
    # Dubois" is redacted.
    "otel_genai_spans": (
        "581def3b9412f6eac805dae7cd310681c0278854d463aeb4c7c5ca5692a2e854",
        {"email": 0, "phone": 2, "card": 0, "account": 1, "name": 3},
    ),
    "langfuse_traces": (
        "730d549227df9318685d2f57698118619df22843cf400f744001c7c9e247a845",
        {"email": 2, "phone": 1, "card": 0, "account": 0, "name": 3},
    ),
    "langsmith_runs": (
        "d7216a6c848bcfea40691c30768ed16ce7bd29e33c816987d83ca882e7aa9d41",
        {"email": 2, "phone": 1, "card": 0, "account": 0, "name": 1},
    ),
}


def imported(name: str, run: Path) -> tuple[str, dict[str, int]]:
    """The sha256 of the dialogues an example's import stores (each one's id, content and
    source line, in id order), and the redaction counts its report gives."""
    with RunStore.open(run) as store:
        report = import_file(store, BUNDLED[name])
        dialogues = sorted(store.records(Dialogue), key=lambda d: d.id)
    assert report.redacted is not None
    stored: list[Any] = [
        [
            d.model_dump(mode="json", exclude={"provenance"}),
            d.provenance and d.provenance.source_line,
        ]
        for d in dialogues
    ]
    digest = hashlib.sha256(canonical_json(stored).encode("utf-8")).hexdigest()
    return digest, report.redacted.model_dump()


@pytest.mark.parametrize("name", PINNED)
def test_each_example_imports_the_dialogues_it_always_did(name: str, tmp_path: Path) -> None:
    assert imported(name, tmp_path / "run") == PINNED[name]


# Each reader's format -> its bundled example.
READERS = {
    "openai-log": "openai_chat_log",
    "otel-genai": "otel_genai_spans",
    "langfuse": "langfuse_traces",
    "langsmith": "langsmith_runs",
}


def first_record(fmt: str) -> str:
    """The first record of the format's example, on one line."""
    text = BUNDLED[READERS[fmt]].read_text("utf-8")
    records = json.loads(text) if text.startswith("[") else [json.loads(text.splitlines()[0])]
    return json.dumps(records[0], ensure_ascii=False)


def _without(record: Any, *keys: str | int) -> None:
    """Delete the value at the path of keys (and list indexes) from the record."""
    *path, last = keys
    for key in path:
        record = record[key]
    del record[last]


# Each format -> what a record of it lacks, taken out of one, named as the problem names it.
LACKING: dict[str, tuple[str | int, ...]] = {
    "openai-log": ("request", "messages", 0, "role"),
    "otel-genai": ("resourceSpans", 0, "scopeSpans", 0, "spans", 0, "traceId"),
    "langfuse": ("observations", 0, "type"),
    "langsmith": ("run_type",),
}


def read(path: Path, fmt: str) -> list[str]:
    items = read_items(path, ReadRequest("dialogues"), fmt)
    return [str(item) for _, item in items if isinstance(item, InputError)]


@pytest.mark.parametrize("fmt", READERS)
@pytest.mark.parametrize("text", ["", "\n  \n", "[]", "[\n]\n"])
def test_every_reader_refuses_a_file_with_no_records(fmt: str, text: str, tmp_path: Path) -> None:
    path = tmp_path / "empty.json"
    path.write_text(text, "utf-8")
    with pytest.raises(InputError, match="the file is empty: no records to import"):
        read(path, fmt)


@pytest.mark.parametrize("fmt", READERS)
@pytest.mark.parametrize("broken", [1, 2])
def test_every_reader_names_the_line_and_column_of_broken_json_and_reads_on(
    fmt: str, broken: int, tmp_path: Path
) -> None:
    """On the first line too: a broken line from brace to brace is JSON Lines, not the start of
    one pretty-printed document."""
    lines = [first_record(fmt), first_record(fmt)]
    lines[broken - 1] = '{"id": "t1",, }'
    path = tmp_path / "broken.jsonl"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    items = list(read_items(path, ReadRequest("dialogues"), fmt))
    assert [str(item) for _, item in items if isinstance(item, InputError)] == [
        f"{path}:{broken}: invalid JSON: Expecting property name enclosed in double quotes "
        "(column 13)"
    ]
    assert len(items) == 2  # the other line's dialogue


@pytest.mark.parametrize("fmt", READERS)
def test_every_reader_names_the_field_a_record_lacks(fmt: str, tmp_path: Path) -> None:
    """A record of the format with what locates it taken out: the problem names its line and
    field, and the other records are read."""
    record = json.loads(first_record(fmt))
    _without(record, *LACKING[fmt])
    path = tmp_path / "lacking.jsonl"
    path.write_text(first_record(fmt) + "\n" + json.dumps(record) + "\n", "utf-8")
    field = ".".join(map(str, LACKING[fmt]))
    (problem,) = read(path, fmt)
    assert problem.startswith(f"{path}:2: field '{field}': ")


@pytest.mark.parametrize(
    ("fmt", "other"), [(fmt, other) for fmt in READERS for other in READERS if other != fmt]
)
def test_a_file_of_another_format_is_refused_with_its_format(
    fmt: str, other: str, tmp_path: Path
) -> None:
    path = tmp_path / "other.jsonl"
    path.write_text(first_record(other) + "\n", "utf-8")
    with pytest.raises(
        InputError, match=rf"not a {fmt} file but, by its first record, .*: pass --format {other}$"
    ):
        read(path, fmt)
