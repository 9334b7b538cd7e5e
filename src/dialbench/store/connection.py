"""The store's file and its one SQLite connection: opening (and making) it in WAL mode,
migrating it to this version, and the transactions every write runs in.

WAL mode and one transaction per batch make it safe to kill at any moment: a batch is either
wholly stored or not at all, and the next command picks up from what is there.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Self

from dialbench.errors import DialbenchError
from dialbench.store.migrate import schema_version_known, upgrade
from dialbench.version import __version__

STORE_FILENAME = "dialbench.sqlite"
LOCK_TIMEOUT_S = 30.0


class StoreError(DialbenchError):
    """The store cannot be opened, or a write would overwrite different data."""


def no_store(run_dir: Path) -> StoreError:
    """What a command that reads a run says where none is."""
    return StoreError(f"{run_dir}: no dialbench run store here (no {STORE_FILENAME})")


def require_store(run_dir: Path) -> Path:
    """The run directory, where it holds a store; else its error, before anything is loaded."""
    if not (run_dir / STORE_FILENAME).exists():
        raise no_store(run_dir)
    return run_dir


class StoreConnection:
    """A run directory's SQLite file, open and migrated: what every part of `RunStore` reads and
    writes through. Use as a context manager, or call `close()`."""

    def __init__(self, connection: sqlite3.Connection, path: Path) -> None:
        self._db = connection
        self.path = path

    @classmethod
    def open(cls, run_dir: str | Path, *, create: bool = True, any_thread: bool = False) -> Self:
        """Open (and with `create`, make) the store in `run_dir`, migrating it to this version.

        `any_thread` lets other threads use this connection; the caller serialises them."""
        run_dir = Path(run_dir)
        path = run_dir / STORE_FILENAME
        if not path.exists():
            if not create:
                raise no_store(run_dir)
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
        return store

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Self:
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
            upgrade(db, current)

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

    def data_version(self) -> int:
        """A number that changes whenever another connection commits: this connection's data
        is unchanged while it stays the same."""
        return int(self._db.execute("PRAGMA data_version").fetchone()[0])

    def integrity_problems(self) -> list[str]:
        """SQLite's own integrity and foreign-key checks; empty when the file is sound."""
        problems = [row[0] for row in self._db.execute("PRAGMA integrity_check")]
        problems = [p for p in problems if p != "ok"]
        problems += [f"foreign key: {row}" for row in self._db.execute("PRAGMA foreign_key_check")]
        return problems


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
