from __future__ import annotations

import multiprocessing
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from dialbench.errors import DialbenchError
from dialbench.hashing import canonical_json
from dialbench.schema import (
    Annotation,
    Annotator,
    Dialogue,
    Invocation,
    Judgment,
    Target,
    UsageLine,
)
from dialbench.store import (
    STORE_FILENAME,
    CachedCall,
    RunStore,
    StoreError,
    schema_version_known,
)
from dialbench.store.migrate import migration_scripts


def make_dialogue(text: str, language: str = "en") -> Dialogue:
    return Dialogue.model_validate(
        {"language": language, "turns": [{"role": "user", "text": text}]}
    )


def test_open_creates_a_migrated_wal_store(tmp_path: Path) -> None:
    with RunStore.open(tmp_path / "run") as store:
        assert store.path == tmp_path / "run" / STORE_FILENAME
        assert store.schema_version == schema_version_known()
    db = sqlite3.connect(tmp_path / "run" / STORE_FILENAME)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def _open_at_once(run_dir: Path, barrier: multiprocessing.synchronize.Barrier) -> None:
    barrier.wait()
    with RunStore.open(run_dir) as store:
        store.start_invocation("at once")


@pytest.mark.parametrize("attempt", range(4))
def test_processes_opening_a_new_store_at_once_all_get_it_migrated(
    tmp_path: Path, attempt: int
) -> None:
    """Commands started together on a new run (a shell loop, a scheduler): each waits for the
    one migrating and finds nothing left to do, whatever the interleaving."""
    forked = multiprocessing.get_context("fork")
    barrier = forked.Barrier(8)
    processes = [
        forked.Process(target=_open_at_once, args=(tmp_path / "run", barrier)) for _ in range(8)
    ]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=60)
    assert [process.exitcode for process in processes] == [0] * 8
    with RunStore.open(tmp_path / "run", create=False) as store:
        assert store.schema_version == schema_version_known()
        assert len(store.invocations()) == 8


def test_open_without_create_needs_an_existing_store(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no dialbench run store"):
        RunStore.open(tmp_path / "missing", create=False)


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    RunStore.open(tmp_path).close()
    db = sqlite3.connect(tmp_path / STORE_FILENAME)
    db.execute(f"PRAGMA user_version = {schema_version_known() + 1}")
    db.close()
    with pytest.raises(StoreError, match="newer than this dialbench"):
        RunStore.open(tmp_path)


def test_a_file_that_is_not_sqlite_is_refused(tmp_path: Path) -> None:
    (tmp_path / STORE_FILENAME).write_text("not a database at all" * 100)
    with pytest.raises(StoreError, match="not a dialbench store"):
        RunStore.open(tmp_path)


def store_at_version(folder: Path, schema: int) -> tuple[sqlite3.Connection, Invocation]:
    """A store as the code of schema version `schema` made it, with one finished run."""
    db = sqlite3.connect(folder / STORE_FILENAME, isolation_level=None)
    for version, script in migration_scripts():
        if version <= schema:
            db.executescript(script)
    db.execute(f"PRAGMA user_version = {schema}")
    run = Invocation(command="import")
    db.execute(
        "INSERT INTO runs VALUES (?, ?, ?, ?, ?)",
        (run.id, run.command, "finished", run.started_at.isoformat(), run.model_dump_json()),
    )
    return db, run


def test_a_store_made_before_the_complete_column_keeps_which_labels_are_finished(
    tmp_path: Path,
) -> None:
    """Migration 0006 on a store at schema 5, with rows as the code of that schema wrote them:
    the new `complete` column is filled from each record, and writes keep it up to date."""
    db, run = store_at_version(tmp_path, 5)

    def annotation(dialogue: str, complete: bool, turn: int | None = None) -> Annotation:
        target = Target(dialogue_id=dialogue, turn_index=turn)
        return Annotation(annotator_id="ann", target=target, labels={"x": 1}, complete=complete)

    finished, started, turn = (
        annotation("d1", True),
        annotation("d2", False),
        annotation("d3", False, 0),
    )
    for old in (finished, started, turn):
        db.execute(
            "INSERT INTO annotations VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                old.id,
                run.id,
                "ann",
                old.target.dialogue_id,
                old.target.turn_index,
                None,
                canonical_json(old.model_dump(mode="json")),
            ),
        )
    db.close()
    with RunStore.open(tmp_path) as store:
        assert store.schema_version == schema_version_known()
        assert store.dialogue_labels() == [("ann", "d1", True), ("ann", "d2", False)]
        assert store.get(Annotation, started.id) == started
        with store.invocation("serve") as now:
            store.add([annotation("d2", True), annotation("d1", False)], now, on_conflict="replace")
        assert store.dialogue_labels(["ann"]) == [("ann", "d1", False), ("ann", "d2", True)]
        assert store.dialogue_labels(["someone else"]) == []


def test_a_store_made_before_the_review_column_keeps_its_reviews_apart_from_labels(
    tmp_path: Path,
) -> None:
    """Migration 0007 on a store at schema 6 holding a review (stored by code that kept
    `review_of` in the record only): the column is filled from it, and the annotation pages'
    progress leaves it out while the review pages' finds it."""
    db, run = store_at_version(tmp_path, 6)
    target = Target(dialogue_id="d1")
    label = Annotation(annotator_id="ann", target=target, labels={"overall": 4})
    review = Annotation(annotator_id="ann", target=target, labels={"overall": 2}, review_of="j-1")
    for old in (label, review):
        db.execute(
            "INSERT INTO annotations VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (old.id, run.id, "ann", "d1", None, None, canonical_json(old.model_dump()), 1),
        )
    db.close()
    with RunStore.open(tmp_path) as store:
        assert store.dialogue_labels() == [("ann", "d1", True)]
        assert store.review_labels() == [("ann", "j-1", True)]
        assert store.review_labels(["someone else"]) == []
        with store.invocation("serve") as now:
            store.add([review.model_copy(update={"complete": False})], now, on_conflict="replace")
        assert store.review_labels(["ann"]) == [("ann", "j-1", False)]
        assert store.dialogue_labels(["ann"]) == [("ann", "d1", True)]


def test_a_store_made_before_reviewers_keeps_its_annotators_and_takes_reviewers(
    tmp_path: Path,
) -> None:
    """Migration 0008 on a store at schema 7 holding an annotator of a benchmark: the table is
    rebuilt with the record kept as it was, and an annotator with no benchmark (a reviewer)
    can then be stored."""
    db, run = store_at_version(tmp_path, 7)
    ana = Annotator(name="ana", benchmark="bench", languages=["en"], token_sha256="a" * 64)
    stored = canonical_json(ana.model_dump(mode="json"))
    db.execute(
        "INSERT INTO annotators VALUES (?, ?, ?, ?, ?, ?)",
        (ana.id, run.id, "ana", "bench", ana.token_sha256, stored),
    )
    db.close()
    reviewer = Annotator(name="rui", languages=["ja"], token_sha256="b" * 64)
    with RunStore.open(tmp_path) as store:
        assert list(store.records_json(Annotator)) == [stored]
        with store.invocation("annotate add") as now:
            store.add([reviewer], now)
        assert list(store.records(Annotator)) == [ana, reviewer]
        assert "benchmark" not in list(store.records_json(Annotator))[1]


def test_add_is_idempotent_and_conflicts_are_explicit(tmp_path: Path) -> None:
    with RunStore.open(tmp_path) as store, store.invocation("test") as run:
        first = make_dialogue("hello")
        assert store.add([first], run).added == 1
        assert store.add([first], run).unchanged == 1
        changed = first.model_copy(update={"source": "elsewhere"})
        with pytest.raises(StoreError, match="already stored with different content"):
            store.add([changed], run)
        assert store.add([changed], run, on_conflict="keep").unchanged == 1
        assert store.get(Dialogue, first.id) == first
        assert store.add([changed], run, on_conflict="replace").replaced == 1
        assert store.get(Dialogue, first.id) == changed


def test_a_failed_batch_writes_nothing(tmp_path: Path) -> None:
    with RunStore.open(tmp_path) as store, store.invocation("test") as run:
        original = make_dialogue("one")
        store.add([original], run)
        conflicting = original.model_copy(update={"source": "other"})
        with pytest.raises(StoreError):
            store.add([make_dialogue("two"), make_dialogue("three"), conflicting], run)
        assert store.count(Dialogue) == 1


def test_records_filter_on_indexed_columns_only(tmp_path: Path) -> None:
    with RunStore.open(tmp_path) as store, store.invocation("test") as run:
        store.add([make_dialogue("a", "en"), make_dialogue("b", "de")], run)
        assert [d.language for d in store.records(Dialogue, language="de")] == ["de"]
        with pytest.raises(StoreError, match="cannot filter"):
            list(store.records(Dialogue, text="a"))


def test_runs_record_their_outcome(tmp_path: Path) -> None:
    with RunStore.open(tmp_path) as store:
        with store.invocation("ok-command", {"k": 1}):
            pass
        with pytest.raises(RuntimeError), store.invocation("bad-command"):
            raise RuntimeError("boom")
        runs = {r.command: r for r in store.invocations()}
    assert runs["ok-command"].status == "finished"
    assert runs["ok-command"].config_hash
    assert runs["ok-command"].finished_at is not None
    assert runs["bad-command"].status == "failed"


def test_judgments_and_annotations_round_trip(tmp_path: Path) -> None:
    target = Target(dialogue_id="d-x", turn_index=1)
    judgment = Judgment(
        protocol="issues",
        judge_model="local:qwen2.5-0.5b",
        target=target,
        parse_status="ok",
        result={"overall": 4, "labels": ["repetitive"]},
        raw_output="{...}",
    )
    annotation = Annotation(annotator_id="ann-1", target=target, labels={"overall": 5})
    with RunStore.open(tmp_path) as store, store.invocation("test") as run:
        store.add([judgment, annotation], run)
        assert list(store.records(Judgment, protocol="issues")) == [judgment]
        assert list(store.records(Annotation, annotator_id="ann-1")) == [annotation]
        assert store.integrity_problems() == []


def test_a_killed_run_reads_interrupted_when_the_store_is_next_opened(tmp_path: Path) -> None:
    started = subprocess.run(
        [
            sys.executable,
            "-c",
            "import os, signal, sys\n"
            "from dialbench.store import RunStore\n"
            "RunStore.open(sys.argv[1]).start_invocation('simulate')\n"
            "os.kill(os.getpid(), signal.SIGKILL)\n",
            str(tmp_path),
        ],
        check=False,
    )
    assert started.returncode == -signal.SIGKILL
    with RunStore.open(tmp_path) as store:
        alive = store.start_invocation("judge")  # this process is alive: its run stays running
    with RunStore.open(tmp_path) as store:
        runs = {r.command: r for r in store.invocations()}
    assert runs["simulate"].status == "interrupted"
    assert runs["simulate"].pid is not None
    assert runs["simulate"].host
    assert runs["judge"].status == "running"
    assert runs["judge"].pid == os.getpid()
    assert alive.id == runs["judge"].id


def reject_after_storing(store: RunStore) -> None:
    with store.invocation("half-done") as run:
        store.add([make_dialogue("stored")], run)
        raise DialbenchError("failed after storing")


def test_a_block_that_rejects_its_input_before_storing_leaves_no_run(tmp_path: Path) -> None:
    with RunStore.open(tmp_path) as store:
        with pytest.raises(DialbenchError), store.invocation("rejected"):
            raise DialbenchError("bad input")
        with pytest.raises(DialbenchError):
            reject_after_storing(store)
        runs = {r.command: r.status for r in store.invocations()}
    assert runs == {"half-done": "failed"}


def test_stored_rows_and_seed_units_are_pinned(tmp_path: Path) -> None:
    """The JSON a row keeps, its indexed columns and the seed units read from them, as this
    version wrote them: moving the store's code about must not change a byte of either."""
    seeded = Dialogue.model_validate(
        {"language": "en", "turns": [{"role": "user", "text": "hi"}], "seed": {"scene": "a cafe"}}
    )
    grown = Dialogue.model_validate(
        {
            "language": "de",
            "source": "selfchat",
            "participants": {"assistant": "bot"},
            "turns": [{"role": "user", "text": "hallo"}, {"role": "assistant", "text": "ja"}],
            "metadata": {"chatseed_dialogue": "d-seed"},
        }
    )
    lone = make_dialogue("alone")
    with RunStore.open(tmp_path) as store, store.invocation("test") as run:
        store.add([seeded, grown, lone], run)
        stored = list(store.records_json(Dialogue))
        units = store.seed_units()
    db = sqlite3.connect(tmp_path / STORE_FILENAME)
    columns = db.execute(
        "SELECT id, language, source, user_model, assistant_model, n_turns FROM dialogues "
        "ORDER BY rowid"
    ).fetchall()
    assert stored[0] == (
        '{"end_reason":null,"id":"d-db890ca1be1822a317cec4fe","language":"en","metadata":{},'
        '"participants":{"assistant":null,"user":null},"provenance":null,"seed":'
        '{"affective_state":null,"chatseed":null,"culture":null,"gender":null,"language":null,'
        '"metadata":{},"persona":null,"scene":"a cafe"},"source":"imported","turns":'
        '[{"attempts":[],"metadata":{},"model":null,"role":"user","text":"hi"}]}'
    )
    assert columns == [
        ("d-db890ca1be1822a317cec4fe", "en", "imported", None, None, 1),
        (grown.id, "de", "selfchat", None, "bot", 2),
        (lone.id, "en", "imported", None, None, 1),
    ]
    assert units == {
        seeded.id: "seed:00c47b19af2eb75e",
        grown.id: "chatseed:d-seed",
        lone.id: f"dialogue:{lone.id}",
    }


def test_absorbing_a_shard_copies_its_runs_records_usage_and_calls_once(tmp_path: Path) -> None:
    """What a shard did, brought home: the runs but those skipped, their records and usage,
    and every cached call; absorbing again changes nothing."""
    call = CachedCall(key="k1", spec="local:m", kind="chat", request="{}", completion='"hi"')
    with RunStore.open(tmp_path / "shard") as shard:
        with shard.invocation("seed") as seed:
            shard.add([make_dialogue("seeded before")], seed)
        with shard.invocation("simulate") as work:
            shard.add([make_dialogue("one"), make_dialogue("two")], work)
            shard.save_usage(work.id, [UsageLine(role="chatbot", model="m", calls=2)])
        shard.add_cached_calls([call])
        with RunStore.open(tmp_path / "home") as home:
            first = home.absorb(shard, skip_runs=frozenset({seed.id}))
            again = home.absorb(shard, skip_runs=frozenset({seed.id}))
            assert (first.added, again.added, again.unchanged) == (2, 0, 2)
            assert [(r.command, r.status) for r in home.invocations()] == [("simulate", "finished")]
            assert sorted(d.turns[0].text for d in home.records(Dialogue)) == ["one", "two"]
            assert home.usage() == [UsageLine(role="chatbot", model="m", calls=2)]
            assert (home.cached_call_count(), home.cached_completion("k1")) == (1, '"hi"')
