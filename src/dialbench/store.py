"""The run store: one SQLite file per run directory, the store of record for every stage.

WAL mode and one transaction per batch make it safe to kill at any moment: a batch is either
wholly stored or not at all, and the next command picks up from what is there.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel

from dialbench.errors import DialbenchError
from dialbench.hashing import canonical_json, content_hash
from dialbench.machine import computed_on
from dialbench.schema import (
    Annotation,
    Annotator,
    Benchmark,
    Dialogue,
    JudgeConfiguration,
    Judgment,
    Record,
    Run,
    RunStatus,
    StageRecord,
    StoredRecord,
    Target,
    UsageLine,
    utc_now,
)
from dialbench.version import __version__

STORE_FILENAME = "dialbench.sqlite"
OnConflict = Literal["error", "keep", "replace"]
R = TypeVar("R", bound=StoredRecord)


class StoreError(DialbenchError):
    """The store cannot be opened, or a write would overwrite different data."""


@dataclass(frozen=True)
class _Table:
    """How one record type maps onto its table: the columns copied out of the record."""

    name: str
    columns: Callable[[Any], dict[str, Any]]
    filters: tuple[str, ...]


def _target_columns(target: Target) -> dict[str, Any]:
    return {
        "dialogue_id": target.dialogue_id,
        "turn_index": target.turn_index,
        "other_dialogue_id": target.other_dialogue_id,
    }


def _dialogue_columns(d: Dialogue) -> dict[str, Any]:
    return {
        "language": d.language,
        "source": d.source,
        "user_model": d.participants.user,
        "assistant_model": d.participants.assistant,
        "n_turns": len(d.turns),
    }


def _judgment_columns(j: Judgment) -> dict[str, Any]:
    return {
        "protocol": j.protocol,
        "judge_model": j.judge_model,
        "parse_status": j.parse_status,
        **_target_columns(j.target),
    }


def _annotation_columns(a: Annotation) -> dict[str, Any]:
    return {
        "annotator_id": a.annotator_id,
        "complete": a.complete,
        "review_of": a.review_of,
        **_target_columns(a.target),
    }


TABLES: dict[type[StoredRecord], _Table] = {
    Dialogue: _Table(
        "dialogues",
        _dialogue_columns,
        ("id", "run_id", "language", "source", "user_model", "assistant_model"),
    ),
    Judgment: _Table(
        "judgments",
        _judgment_columns,
        ("id", "run_id", "protocol", "judge_model", "dialogue_id", "parse_status"),
    ),
    Annotation: _Table(
        "annotations", _annotation_columns, ("id", "run_id", "annotator_id", "dialogue_id")
    ),
    Benchmark: _Table("benchmarks", lambda b: {"name": b.name}, ("id", "run_id", "name")),
    Annotator: _Table(
        "annotators",
        lambda a: {"name": a.name, "benchmark": a.benchmark, "token_sha256": a.token_sha256},
        ("id", "run_id", "name", "benchmark", "token_sha256"),
    ),
    StageRecord: _Table("pipeline_stages", lambda s: {"name": s.name}, ("id", "run_id", "name")),
}


@dataclass(frozen=True)
class CachedCall:
    """One completed model call as the cache keeps it: request and completion as JSON."""

    key: str
    spec: str
    kind: str
    request: str
    completion: str


class AddResult(Record):
    """What a batch write did: new records, identical ones already present, and replaced ones."""

    added: int = 0
    unchanged: int = 0
    replaced: int = 0


def _migrations() -> list[tuple[int, str]]:
    """The schema migrations shipped with the package, as (version, SQL) in order."""
    folder = resources.files("dialbench") / "migrations"
    scripts = sorted((f for f in folder.iterdir() if f.name.endswith(".sql")), key=lambda f: f.name)
    return [(int(f.name.split("_", 1)[0]), f.read_text(encoding="utf-8")) for f in scripts]


def schema_version_known() -> int:
    return max(version for version, _ in _migrations())


LOCK_TIMEOUT_S = 30.0


def _write_ahead_log(connection: sqlite3.Connection) -> None:
    """Switch the store to WAL. A new store's switch needs it to itself, and SQLite answers
    "locked" at once, without waiting, while another process (a command started at the same
    time on the same new run) is making it: wait for that one as for any lock."""
    deadline = time.monotonic() + LOCK_TIMEOUT_S
    while True:
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def _statements(script: str) -> Iterator[str]:
    """A migration script's statements one by one: `executescript` would commit the
    transaction they must run in."""
    statement = ""
    for piece in script.split(";"):
        statement += piece + ";"
        if sqlite3.complete_statement(statement):
            yield statement
            statement = ""


_CHATSEED = "json_extract(record, '$.metadata.chatseed_dialogue')"
_SEED = "json(json_extract(record, '$.seed'))"
_UNIT_FIELDS = f"id, {_CHATSEED}, {_SEED}"


@lru_cache(maxsize=4096)
def _seed_hash(seed: str) -> str:
    """A seed context's part of its unit, kept for the seeds last seen: a seed's dialogues are
    stored side by side, so a pass over the store hashes each seed once, not once a dialogue."""
    return content_hash(json.loads(seed))[:16]


def _seed_unit(dialogue_id: str, chatseed: object, seed: str | None) -> str:
    """`RunStore.seed_units`'s unit of one dialogue, from its row of `_UNIT_FIELDS`: the one
    place the rule is written."""
    if isinstance(chatseed, str):
        return f"chatseed:{chatseed}"
    if seed is not None:
        return f"seed:{_seed_hash(seed)}"
    return f"dialogue:{dialogue_id}"


class RunStore:
    """A run directory's SQLite store. Use as a context manager, or call `close()`."""

    def __init__(self, connection: sqlite3.Connection, path: Path) -> None:
        self._db = connection
        self.path = path

    @classmethod
    def open(
        cls, run_dir: str | Path, *, create: bool = True, any_thread: bool = False
    ) -> RunStore:
        """Open (and with `create`, make) the store in `run_dir`, migrating it to this version.

        `any_thread` lets other threads use this connection; the caller serialises them."""
        run_dir = Path(run_dir)
        path = run_dir / STORE_FILENAME
        if not path.exists():
            if not create:
                raise StoreError(f"{run_dir}: no dialbench run store here (no {STORE_FILENAME})")
            if run_dir.exists() and not run_dir.is_dir():
                raise StoreError(f"{run_dir}: is a file, not a run directory")
            run_dir.mkdir(parents=True, exist_ok=True)
        try:
            connection = sqlite3.connect(
                path, isolation_level=None, timeout=LOCK_TIMEOUT_S, check_same_thread=not any_thread
            )
            _write_ahead_log(connection)
        except sqlite3.DatabaseError as error:
            raise StoreError(f"{path}: not a dialbench store ({error})") from error
        connection.execute("PRAGMA synchronous=NORMAL")
        connection.execute("PRAGMA foreign_keys=ON")
        store = cls(connection, path)
        store._migrate()
        store._mark_interrupted_runs()
        return store

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def schema_version(self) -> int:
        return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    def _migrate(self) -> None:
        """Bring the schema to this version. The version is read again under the write lock:
        commands started at once on a new run each wait for the one migrating, then find
        nothing left to do."""
        known = schema_version_known()
        if self.schema_version == known:
            return
        with self.transaction() as db:
            current = self.schema_version
            if current > known:
                raise StoreError(
                    f"{self.path}: schema version {current} is newer than this dialbench "
                    f"({__version__}) knows ({known}); upgrade dialbench to open it"
                )
            for version, script in _migrations():
                if version > current:
                    for statement in _statements(script):
                        db.execute(statement)
                    db.execute(f"PRAGMA user_version = {version}")

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """All writes inside happen together or not at all."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    # runs

    def start_run(self, command: str, config: dict[str, Any] | None = None) -> Run:
        run = Run(
            command=command,
            config=config or {},
            dialbench_version=__version__,
            pid=os.getpid(),
            host=socket.gethostname(),
            processor=computed_on(),
        )
        with self.transaction() as db:
            db.execute(
                "INSERT INTO runs (id, command, status, started_at, record) VALUES (?,?,?,?,?)",
                (run.id, run.command, run.status, run.started_at.isoformat(), _json(run)),
            )
        return run

    def finish_run(self, run: Run, status: RunStatus = "finished") -> Run:
        ended = None if status == "interrupted" else utc_now()
        done = run.model_copy(
            update={"status": status, "finished_at": ended, "processor": computed_on()}
        )
        with self.transaction() as db:
            db.execute(
                "UPDATE runs SET status = ?, record = ? WHERE id = ?", (status, _json(done), run.id)
            )
        return done

    @contextmanager
    def run(self, command: str, config: dict[str, Any] | None = None) -> Iterator[Run]:
        """A run record that ends `finished`, or `failed` if the block raises.

        A block that rejects its input (a `DialbenchError`) before storing anything leaves no
        run behind: nothing was done, so there is nothing to account for.
        """
        run = self.start_run(command, config)
        try:
            yield run
        except DialbenchError:
            if self._run_stored_anything(run):
                self.finish_run(run, "failed")
            else:
                with self.transaction() as db:
                    db.execute("DELETE FROM runs WHERE id = ?", (run.id,))
            raise
        except BaseException:
            self.finish_run(run, "failed")
            raise
        self.finish_run(run)

    def _run_stored_anything(self, run: Run) -> bool:
        tables = [table.name for table in TABLES.values()] + ["llm_usage"]
        return any(
            self._db.execute(f"SELECT 1 FROM {name} WHERE run_id = ? LIMIT 1", (run.id,)).fetchone()
            for name in tables
        )

    def _mark_interrupted_runs(self) -> None:
        """Runs still `running` whose process on this host is gone were killed: say so."""
        host = socket.gethostname()
        rows = self._db.execute("SELECT record FROM runs WHERE status = 'running'").fetchall()
        for (record,) in rows:
            run = Run.model_validate_json(record)
            if run.host == host and run.pid is not None and not _process_exists(run.pid):
                self.finish_run(run, "interrupted")

    def runs(self) -> list[Run]:
        rows = self._db.execute("SELECT record FROM runs ORDER BY started_at, id")
        return [Run.model_validate_json(record) for (record,) in rows]

    # records

    def add(
        self, records: Sequence[StoredRecord], run: Run, on_conflict: OnConflict = "error"
    ) -> AddResult:
        """Store a batch of records in one transaction.

        A record whose id is already stored with the same content (provenance aside) is left as
        it is, so re-imports and resumed runs are idempotent. Different content under the same id
        is an error unless `on_conflict` says to keep the stored one or replace it.
        """
        counts = Counter[str]()
        with self.transaction() as db:
            for table, group in _by_table(records).items():
                stored = _stored_json(db, table.name, [r.id for r in group])
                rows = []
                for record in group:
                    old = stored.get(record.id)
                    if old is not None and (on_conflict == "keep" or _same_content(old, record)):
                        counts["unchanged"] += 1
                        continue
                    if old is not None and on_conflict == "error":
                        raise StoreError(
                            f"{table.name[:-1]} {record.id} is already stored with different "
                            "content (re-import with --on-conflict keep or replace)"
                        )
                    counts["added" if old is None else "replaced"] += 1
                    stored[record.id] = new = _json(record)
                    rows.append(
                        {"id": record.id, "run_id": run.id, **table.columns(record), "record": new}
                    )
                if rows:
                    names = ", ".join(rows[0])
                    marks = ", ".join(f":{name}" for name in rows[0])
                    db.executemany(
                        f"INSERT OR REPLACE INTO {table.name} ({names}) VALUES ({marks})", rows
                    )
        return AddResult(**counts)

    def stored_differently(self, records: Sequence[StoredRecord]) -> list[StoredRecord]:
        """Those of the records whose id is stored with other content (provenance aside): what
        `add` refuses unless told to keep or replace, found without writing anything."""
        different = []
        for table, group in _by_table(records).items():
            stored = _stored_json(self._db, table.name, [r.id for r in group])
            different += [r for r in group if r.id in stored and not _same_content(stored[r.id], r)]
        return different

    def records(self, record_type: type[R], **where: Any) -> Iterator[R]:
        """Stored records of a type in insertion order, filtered by equality on indexed columns."""
        for record in self.records_json(record_type, **where):
            yield record_type.model_validate_json(record)

    def records_json(self, record_type: type[StoredRecord], **where: Any) -> Iterator[str]:
        """`records` as their stored JSON, unparsed: for callers that keep parsed copies."""
        table = TABLES[record_type]
        unknown = set(where) - set(table.filters)
        if unknown:
            raise StoreError(
                f"cannot filter {table.name} by {sorted(unknown)}: use {table.filters}"
            )
        clauses = " AND ".join(f"{column} = ?" for column in where)
        query = f"SELECT record FROM {table.name}" + (f" WHERE {clauses}" if where else "")
        for (record,) in self._db.execute(query + " ORDER BY rowid", tuple(where.values())):
            yield record

    def ids(self, record_type: type[StoredRecord]) -> Iterator[str]:
        """The stored ids of a type, in no set order, read from the index alone: a pass over a
        large store that needs no record reads a fraction of it."""
        table = TABLES[record_type].name
        for (record_id,) in self._db.execute(f"SELECT id FROM {table}"):
            yield record_id

    def get(self, record_type: type[R], record_id: str) -> R | None:
        return next(self.records(record_type, id=record_id), None)

    def count(self, record_type: type[StoredRecord]) -> int:
        table = TABLES[record_type]
        return int(self._db.execute(f"SELECT COUNT(*) FROM {table.name}").fetchone()[0])

    def group_counts(self, record_type: type[StoredRecord], *columns: str) -> list[tuple[Any, ...]]:
        """Counts grouped by columns, largest first: rows of (*column values, count)."""
        table = TABLES[record_type]
        names = ", ".join(columns)
        query = (
            f"SELECT {names}, COUNT(*) FROM {table.name} GROUP BY {names} ORDER BY COUNT(*) DESC"
        )
        return [tuple(row) for row in self._db.execute(query)]

    # model calls: the cache and the usage lines

    def cached_completion(self, key: str) -> str | None:
        """The stored completion (JSON) of the call with this cache key, if it was made."""
        row = self._db.execute("SELECT completion FROM llm_cache WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def add_cached_calls(self, calls: Sequence[CachedCall]) -> None:
        """Store completed calls in one transaction; a key already stored keeps its first answer."""
        created = utc_now().isoformat()
        rows = [(c.key, c.spec, c.kind, created, c.request, c.completion) for c in calls]
        with self.transaction() as db:
            db.executemany("INSERT OR IGNORE INTO llm_cache VALUES (?, ?, ?, ?, ?, ?)", rows)

    def cached_call_count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM llm_cache").fetchone()[0])

    def save_usage(self, run_id: str, lines: Sequence[UsageLine]) -> None:
        """One run's usage per role and model; saving again replaces that run's lines."""
        rows = [(run_id, line.role, line.model, _json(line)) for line in lines]
        with self.transaction() as db:
            db.executemany("INSERT OR REPLACE INTO llm_usage VALUES (?, ?, ?, ?)", rows)

    def usage(self) -> list[UsageLine]:
        """Usage of every run added up per (role, model), in that order."""
        total: dict[tuple[str, str], UsageLine] = {}
        for (record,) in self._db.execute("SELECT record FROM llm_usage"):
            line = UsageLine.model_validate_json(record)
            key = (line.role, line.model)
            total[key] = total[key] + line if key in total else line
        return [total[key] for key in sorted(total)]

    # merging another store's work (a shard's)

    def absorb(self, other: RunStore, *, skip_runs: frozenset[str] = frozenset()) -> AddResult:
        """Copy another store's work into this one: its runs but `skip_runs`, the records they
        stored and their usage, and every cached call. Records go through `add`, so a record
        already here unchanged is left as it is and absorbing twice changes nothing; one whose
        content changed is replaced, as the stage that made it would have done here."""
        counts = Counter[str]()
        for run in other.runs():
            if run.id in skip_runs:
                continue
            with self.transaction() as db:
                db.execute(
                    "INSERT INTO runs (id, command, status, started_at, record) "
                    "VALUES (?,?,?,?,?) ON CONFLICT (id) "
                    "DO UPDATE SET status = excluded.status, record = excluded.record",
                    (run.id, run.command, run.status, run.started_at.isoformat(), _json(run)),
                )
            for record_type in TABLES:
                records = list(other.records(record_type, run_id=run.id))
                for start in range(0, len(records), 500):
                    added = self.add(records[start : start + 500], run, on_conflict="replace")
                    counts.update(added.model_dump())
            usage = other._db.execute("SELECT * FROM llm_usage WHERE run_id = ?", (run.id,))
            with self.transaction() as db:
                db.executemany("INSERT OR REPLACE INTO llm_usage VALUES (?, ?, ?, ?)", usage)
        calls = other._db.execute("SELECT * FROM llm_cache")
        while rows := calls.fetchmany(500):
            with self.transaction() as db:
                db.executemany("INSERT OR IGNORE INTO llm_cache VALUES (?, ?, ?, ?, ?, ?)", rows)
        return AddResult(**counts)

    def judge_configurations(self) -> list[tuple[str, str, JudgeConfiguration | None]]:
        """Each distinct (protocol, judge model, configuration) of the stored judgments, in no
        set order: what a judge's name is made of (`ratings.JudgeNames`), read by SQL without
        parsing a judgment (None: judged before configurations were recorded)."""
        rows = self._db.execute(
            "SELECT DISTINCT protocol, judge_model, json_extract(record, '$.configuration') "
            "FROM judgments"
        )
        return [
            (
                protocol,
                judge_model,
                None if found is None else JudgeConfiguration.model_validate_json(found),
            )
            for protocol, judge_model, found in rows
        ]

    def dialogue_placements(self) -> dict[str, tuple[str, str | None]]:
        """Dialogue id -> (language, chatbot model), in the order they were stored: where a
        judgment or annotation of it falls in tables by language and chatbot, without reading
        whole dialogues."""
        rows = self._db.execute(
            "SELECT id, language, assistant_model FROM dialogues ORDER BY rowid"
        )
        return {id_: (language, chatbot) for id_, language, chatbot in rows}

    def dialogue_labels(
        self, annotators: Sequence[str] | None = None
    ) -> list[tuple[str, str, bool]]:
        """(annotator, dialogue id, complete) of every label of a whole dialogue (of these
        annotators), reviews of a judge left out, by annotator and dialogue: read from an index
        alone, not the records."""
        query = (
            "SELECT annotator_id, dialogue_id, complete FROM annotations "
            "WHERE turn_index IS NULL AND other_dialogue_id IS NULL AND review_of IS NULL"
        )
        if annotators is not None:
            query += f" AND annotator_id IN ({', '.join('?' * len(annotators))})"
        rows = self._db.execute(
            query + " ORDER BY annotator_id, dialogue_id", tuple(annotators or ())
        )
        return [(annotator, dialogue, bool(complete)) for annotator, dialogue, complete in rows]

    def review_labels(self, annotators: Sequence[str] | None = None) -> list[tuple[str, str, bool]]:
        """(annotator, judgment id, complete) of every review of a judgment (by these
        annotators): read from an index alone, as `dialogue_labels`."""
        query = (
            "SELECT annotator_id, review_of, complete FROM annotations WHERE review_of IS NOT NULL"
        )
        if annotators is not None:
            query += f" AND annotator_id IN ({', '.join('?' * len(annotators))})"
        rows = self._db.execute(query, tuple(annotators or ()))
        return [(annotator, judgment, bool(complete)) for annotator, judgment, complete in rows]

    def last_annotated(self) -> dict[str, str]:
        """Annotator -> when they last saved a label (ISO 8601, UTC), for those who have."""
        rows = self._db.execute(
            "SELECT annotator_id, MAX(json_extract(record, '$.created_at')) FROM annotations "
            "GROUP BY annotator_id HAVING MAX(json_extract(record, '$.created_at')) IS NOT NULL"
        )
        return dict(rows.fetchall())

    def data_version(self) -> int:
        """A number that changes whenever another connection commits: this connection's data
        is unchanged while it stays the same."""
        return int(self._db.execute("PRAGMA data_version").fetchone()[0])

    def chatseeds(self) -> dict[str, str]:
        """Self-chat dialogue id -> the ChatSEED dialogue it continues: self-chats of one seed
        are not independent, and a bootstrap draws them together."""
        rows = self._db.execute(
            "SELECT id, json_extract(record, '$.metadata.chatseed_dialogue') FROM dialogues "
            "WHERE source = 'selfchat'"
        )
        return {id_: seed for id_, seed in rows if isinstance(seed, str)}

    def seed_units(self) -> dict[str, str]:
        """Dialogue id -> the seed it grew from, the unit a chatbot figure resamples and pairs
        on: a self-chat's ChatSEED dialogue, else the hash of the dialogue's seed context (the
        dialogues of one MEDAL seed share their first user turn; the same seed in another run
        hashes the same), else the dialogue itself (imported dialogues: nothing shared)."""
        rows = self._db.execute(f"SELECT {_UNIT_FIELDS} FROM dialogues")
        return {row[0]: _seed_unit(*row) for row in rows}

    def seed_mates(self, dialogue_id: str) -> tuple[str, dict[str, str | None]]:
        """The dialogue's seed unit (as `seed_units` gives it) and the dialogues of that unit,
        itself among them, each with its chatbot model, in the order stored; KeyError when no
        dialogue has the id. Read from the rows that share a field the unit is made of, not the
        whole store: one dialogue's page costs its seed."""
        own = self._db.execute(
            f"SELECT {_UNIT_FIELDS} FROM dialogues WHERE id = ?", (dialogue_id,)
        ).fetchone()
        if own is None:
            raise KeyError(dialogue_id)
        unit = _seed_unit(*own)
        rows = self._db.execute(
            f"SELECT {_UNIT_FIELDS}, assistant_model FROM dialogues "
            f"WHERE id = ? OR {_CHATSEED} = ? OR {_SEED} = ? ORDER BY rowid",
            own,
        )
        return unit, {row[0]: row[3] for row in rows if _seed_unit(*row[:3]) == unit}

    def seed_dialogues(self, unit: str) -> list[str]:
        """The ids of the dialogues of a seed unit (as `seed_units` gives it), in the order
        stored; none for a unit no dialogue has. A ChatSEED's or a lone dialogue's unit is read
        from the rows that share its field, as `seed_mates`; a seed context's unit holds only a
        hash, which SQL cannot select, so those are read from the seeded rows' units."""
        kind, _, key = unit.partition(":")
        values: tuple[str, ...] = (key,)
        if kind == "dialogue":
            where = "id = ?"
        elif kind == "chatseed":
            where = f"{_CHATSEED} = ?"
        else:
            where, values = f"{_SEED} IS NOT NULL", ()
        rows = self._db.execute(
            f"SELECT {_UNIT_FIELDS} FROM dialogues WHERE {where} ORDER BY rowid", values
        )
        return [row[0] for row in rows if _seed_unit(*row) == unit]

    def turn_count(self) -> int:
        return int(
            self._db.execute("SELECT COALESCE(SUM(n_turns), 0) FROM dialogues").fetchone()[0]
        )

    def integrity_problems(self) -> list[str]:
        """SQLite's own integrity and foreign-key checks; empty when the file is sound."""
        problems = [row[0] for row in self._db.execute("PRAGMA integrity_check")]
        problems = [p for p in problems if p != "ok"]
        problems += [f"foreign key: {row}" for row in self._db.execute("PRAGMA foreign_key_check")]
        return problems


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def _json(record: BaseModel) -> str:
    return canonical_json(record.model_dump(mode="json"))


def _by_table(records: Sequence[StoredRecord]) -> dict[_Table, list[StoredRecord]]:
    by_table: dict[_Table, list[StoredRecord]] = {}
    for record in records:
        by_table.setdefault(TABLES[type(record)], []).append(record)
    return by_table


def _stored_json(db: sqlite3.Connection, table: str, ids: list[str]) -> dict[str, str]:
    """The stored JSON of those ids that are present, looked up in chunks SQLite accepts."""
    found: dict[str, str] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ", ".join("?" * len(chunk))
        query = f"SELECT id, record FROM {table} WHERE id IN ({marks})"
        found.update(db.execute(query, chunk).fetchall())
    return found


def _same_content(stored: str, record: StoredRecord) -> bool:
    """Equal but for provenance: where a record first came from is kept, not a conflict."""
    old = json.loads(stored)
    old.pop("provenance", None)
    return bool(old == record.model_dump(mode="json", exclude={"provenance"}))
