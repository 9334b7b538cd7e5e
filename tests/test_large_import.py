"""Large logs: a streamed import stores what an import of the whole file stored, refuses a bad
file late in it without writing, drops repeated conversations, and resumes a killed import."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from dialbench import examples
from dialbench.errors import InputErrors
from dialbench.io.importer import BATCH, ImportOptions, check_file, import_file, load_records
from dialbench.io.jsonl import JSONL
from dialbench.io.registry import FORMATS
from dialbench.schema import RECORD_TYPES, Annotation, Dialogue, StoredRecord
from dialbench.store import RunStore
from tests.conftest import CSV_MAPPING, Register, RunCli

# (language, a user's question, the chatbot's answer) in each language the tests cover.
LINES = [
    ("en", "Can you recommend a book?", "Try 'The Remains of the Day'."),
    ("zh", "你能推荐一本书吗？", "可以读《活着》。"),
    ("de", "Kannst du ein Buch empfehlen?", "Lies „Der Vorleser“."),
    ("fr", "Peux-tu me conseiller un livre ?", "Lis « L'Étranger »."),
    ("pt", "Podes recomendar um livro?", "Lê 'Ensaio sobre a Cegueira'."),
    ("es", "¿Me recomiendas un libro?", "Lee 'Cien años de soledad'."),
    ("ja", "おすすめの本はありますか？", "『ノルウェイの森』はいかがですか。"),
]


def conversation(number: int, exchanges: int) -> dict[str, Any]:
    language, ask, answer = LINES[number % len(LINES)]
    turns = []
    for k in range(exchanges):
        turns += [
            {"role": "user", "text": f"{ask} ({number}.{k})"},
            {"role": "assistant", "text": f"{answer} ({number}.{k})"},
        ]
    return {"language": language, "turns": turns}


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    with path.open("w", encoding="utf-8") as stream:
        for record in records:
            stream.write(json.dumps(record, ensure_ascii=False) + "\n")
    return path


def content(record: StoredRecord) -> dict[str, Any]:
    return record.model_dump(mode="json", exclude={"provenance"})


@pytest.mark.parametrize(
    ("example", "options"),
    [
        ("multilingual_dialogues", ImportOptions()),
        ("dbdc3_sample", ImportOptions()),
        ("dbdc3_sample", ImportOptions(records="annotations")),
        (
            "speaker_turns",
            ImportOptions(
                language="fr",
                columns={"dialogue_id": "conv", "role": "speaker", "text": "utterance"},
                roles={"A": "user", "B": "assistant"},
            ),
        ),
    ],
)
def test_a_streamed_import_stores_what_the_whole_file_holds(
    tmp_path: Path, example: str, options: ImportOptions
) -> None:
    path = examples.bundled()[example]
    expected = {record.id: content(record) for _, record in load_records(path, options)}
    with RunStore.open(tmp_path / "run") as store:
        report = import_file(store, path, options)
        stored = {r.id: content(r) for r in store.records(RECORD_TYPES[options.records])}
    assert stored == expected
    assert report.added == len(expected)
    assert report.read == report.added + report.repeats + report.prefixes


def test_a_bad_line_late_in_a_large_file_writes_nothing(cli: RunCli, tmp_path: Path) -> None:
    records: list[Any] = [conversation(i, 1) for i in range(2 * BATCH + 500)]
    records[-3] = {**records[-3], "turns": [{"role": "bot", "text": "hi"}]}
    path = write_jsonl(tmp_path / "late.jsonl", records)
    done = cli("import", path, "--run", tmp_path / "run", ok=False)
    assert done.returncode != 0
    assert f"late.jsonl:{len(records) - 2}: field 'turns.0.role'" in done.stderr
    assert "nothing was imported" in done.stderr
    with RunStore.open(tmp_path / "run") as store:
        assert (store.count(Dialogue), store.invocations()) == (0, [])


def test_prefixes_are_dropped_and_the_longest_kept(cli: RunCli, tmp_path: Path) -> None:
    """As production logs write them: each call logs the conversation so far, shortest first."""
    calls = [
        {**conversation(n, 3), "turns": conversation(n, 3)["turns"][:end]}
        for n in range(7)
        for end in (2, 4, 6)
    ]
    other_bot = {**conversation(0, 1), "participants": {"assistant": "another-bot"}}
    records = [*calls, conversation(0, 3), other_bot]
    path = write_jsonl(tmp_path / "log.jsonl", records)
    report = json.loads(cli("import", path, "--run", tmp_path / "run", "--dedupe", "--json").stdout)
    assert {k: report[k] for k in ("read", "repeats", "prefixes", "added")} == {
        "read": 23,
        "repeats": 1,
        "prefixes": 14,
        "added": 8,
    }
    with RunStore.open(tmp_path / "run") as store:
        lengths = sorted(len(d.turns) for d in store.records(Dialogue))
        languages = {d.language for d in store.records(Dialogue)}
    assert lengths == [2] + [6] * 7  # the other chatbot's conversation is its own
    assert languages == {"en", "zh", "de", "fr", "pt", "es", "ja"}
    checked = check_file(path, ImportOptions(dedupe=True))
    assert (checked.read, checked.repeats.repeats, checked.repeats.prefixes) == (23, 1, 14)
    with RunStore.open(tmp_path / "all") as store:
        kept = import_file(store, path)
    assert (kept.prefixes, kept.added) == (0, 22)


def test_formats_of_production_logs_drop_prefixes_by_default(
    tmp_path: Path, register: Register
) -> None:
    register(FORMATS, "log-lines", dataclasses.replace(JSONL, name="log-lines", personal_data=True))
    records = [{**conversation(1, 2), "turns": conversation(1, 2)["turns"][:2]}, conversation(1, 2)]
    path = write_jsonl(tmp_path / "calls.jsonl", records)
    with RunStore.open(tmp_path / "run") as store:
        dropped = import_file(store, path, ImportOptions(format="log-lines"))
        kept = import_file(store, path, ImportOptions(format="log-lines", dedupe=False))
        run = store.invocations()[0]
    assert (dropped.prefixes, dropped.added, kept.prefixes, kept.added) == (1, 1, 0, 1)
    assert run.config["options"] == {**run.config["options"], "dedupe": True}


def test_a_killed_import_run_again_adds_nothing_twice(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "log.jsonl", [conversation(i, 1) for i in range(2 * BATCH + 10)])

    def killed_after_a_batch(step: str, done: int, total: int | None) -> None:
        if step == "storing":
            raise KeyboardInterrupt

    with RunStore.open(tmp_path / "run") as store:
        with pytest.raises(KeyboardInterrupt):
            import_file(store, path, progress=killed_after_a_batch)
        assert store.count(Dialogue) == BATCH
        again = import_file(store, path)
        assert (again.added, again.unchanged, store.count(Dialogue)) == (
            BATCH + 10,
            BATCH,
            2 * BATCH + 10,
        )
        assert [run.status for run in store.invocations()] == ["failed", "finished"]


def test_an_id_stored_with_other_content_is_refused_with_its_line(tmp_path: Path) -> None:
    first = write_jsonl(tmp_path / "a.jsonl", [{**conversation(3, 1), "id": "d-3"}])
    records = [conversation(i, 1) for i in range(BATCH + 5)]
    records[-1] = {**conversation(3, 2), "id": "d-3"}
    second = write_jsonl(tmp_path / "b.jsonl", records)
    with RunStore.open(tmp_path / "run") as store:
        import_file(store, first)
        with pytest.raises(
            InputErrors, match=rf"b.jsonl:{BATCH + 5}: field 'id': id 'd-3' is already"
        ):
            import_file(store, second)
        assert store.count(Dialogue) == 1
        replaced = import_file(store, second, on_conflict="replace")
    assert (replaced.added, replaced.replaced) == (BATCH + 4, 1)


def test_labels_checked_a_batch_at_a_time_still_name_their_line(tmp_path: Path) -> None:
    """`annotate import`'s check sees batches now; what it refuses is still located."""
    dialogue = conversation(0, 1)
    labels = [
        {"annotator_id": "ana", "target": {"dialogue_id": f"d-{i}"}, "labels": {"quality": 1}}
        for i in range(BATCH + 2)
    ]
    path = write_jsonl(tmp_path / "labels.jsonl", labels)
    seen: list[int] = []

    def check(path: Path, batch: list[tuple[int | None, StoredRecord]]) -> None:
        seen.append(len(batch))
        assert all(isinstance(record, Annotation) for _, record in batch)

    with RunStore.open(tmp_path / "run") as store:
        import_file(store, write_jsonl(tmp_path / "d.jsonl", [dialogue]))
        report = import_file(store, path, ImportOptions(records="annotations"), check=check)
    assert seen == [BATCH, 2]
    assert report.added == BATCH + 2


def test_csv_of_turns_still_imports_through_the_cli(cli: RunCli, tmp_path: Path) -> None:
    turns = examples.bundled()["speaker_turns"]
    done = cli("import", turns, *CSV_MAPPING, "--language", "fr", "--run", tmp_path / "run")
    assert "dropped 0 repeats and 0 prefixes" in " ".join(done.stdout.split())
