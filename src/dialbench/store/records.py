"""The stored records, of every type with a table: written in batches that keep what is
already stored unchanged, read back filtered by their indexed columns, and counted."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any, TypeVar

from dialbench.schema import Invocation, Record, StoredRecord
from dialbench.store.conflicts import OnConflict
from dialbench.store.connection import StoreConnection, StoreError
from dialbench.store.tables import TABLES, Table, record_json

R = TypeVar("R", bound=StoredRecord)


class AddResult(Record):
    """What a batch write did: new records, identical ones already present, and replaced ones."""

    added: int = 0
    unchanged: int = 0
    replaced: int = 0


class RecordTables(StoreConnection):
    """The records' tables: one row a record, its JSON beside the columns it is filtered by."""

    def add(
        self, records: Sequence[StoredRecord], run: Invocation, on_conflict: OnConflict = "error"
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
                    stored[record.id] = new = record_json(record)
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

    def turn_count(self) -> int:
        """The turns of all stored dialogues, summed from their indexed column."""
        return int(
            self._db.execute("SELECT COALESCE(SUM(n_turns), 0) FROM dialogues").fetchone()[0]
        )


def _by_table(records: Sequence[StoredRecord]) -> dict[Table, list[StoredRecord]]:
    by_table: dict[Table, list[StoredRecord]] = {}
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
