"""The content-addressed cache of model calls, kept in the run store's SQLite file.

Look-ups are single primary-key reads. Writes go through a queue to one writer thread that
commits whatever has accumulated in one transaction, so thousands of concurrent calls never wait
on SQLite, and a completed call reaches the disk within one commit of finishing.
"""

from __future__ import annotations

import atexit
import queue
import sqlite3
import threading
from pathlib import Path
from typing import Any

from pydantic import ConfigDict

from dialbench.hashing import canonical_json, content_hash
from dialbench.llm.base import Completion, Request
from dialbench.schema import Record, utc_now
from dialbench.store import RunStore


class CacheEntry(Record):
    model_config = ConfigDict(extra="forbid", frozen=True)

    key: str
    spec: str
    request: Request
    completion: Completion


def cache_key(spec: str, request: Request) -> str:
    """Backend and model (the spec), messages or prompt, parameters, seed and sample index."""
    return content_hash({"spec": spec, "request": request.model_dump(mode="json")})


class _Flush:
    def __init__(self) -> None:
        self.done = threading.Event()


class CallCache:
    """Use as a context manager, or call `close()`: closing waits for every queued write."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._reader = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._read_lock = threading.Lock()
        self._pending: dict[str, Completion] = {}
        self._queue: queue.SimpleQueue[CacheEntry | _Flush | None] = queue.SimpleQueue()
        self._writer = threading.Thread(
            target=self._write_loop, name="llm-cache-writer", daemon=True
        )
        self._writer.start()
        atexit.register(self.close)

    @classmethod
    def open(cls, run_dir: str | Path) -> CallCache:
        """The cache of a run directory, creating and migrating its store if needed."""
        with RunStore.open(run_dir) as store:
            path = store.path
        return cls(path)

    def get(self, key: str) -> Completion | None:
        pending = self._pending.get(key)
        if pending is not None:
            return pending
        with self._read_lock:
            row = self._reader.execute(
                "SELECT completion FROM llm_cache WHERE key = ?", (key,)
            ).fetchone()
        return None if row is None else Completion.model_validate_json(row[0])

    def put(self, entry: CacheEntry) -> None:
        self._pending[entry.key] = entry.completion
        self._queue.put(entry)

    def __len__(self) -> int:
        self.flush()
        with self._read_lock:
            return int(self._reader.execute("SELECT COUNT(*) FROM llm_cache").fetchone()[0])

    def flush(self) -> None:
        """Block until every entry put so far is committed."""
        if not self._writer.is_alive():  # closed: everything was written on the way out
            return
        marker = _Flush()
        self._queue.put(marker)
        marker.done.wait()

    def close(self) -> None:
        atexit.unregister(self.close)
        if self._writer.is_alive():
            self._queue.put(None)
            self._writer.join()
            self._reader.close()

    def __enter__(self) -> CallCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def execute(self, sql: str, parameters: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """A read or a single write on the cache's own connection (usage records, tests)."""
        with self._read_lock:
            return list(self._reader.execute(sql, parameters))

    def _write_loop(self) -> None:
        writer = sqlite3.connect(self.path, isolation_level=None, timeout=60.0)
        writer.execute("PRAGMA synchronous=NORMAL")
        stopping = False
        while not stopping:
            batch: list[CacheEntry] = []
            markers: list[_Flush] = []
            item = self._queue.get()
            while True:
                if item is None:
                    stopping = True
                elif isinstance(item, _Flush):
                    markers.append(item)
                else:
                    batch.append(item)
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
            if batch:
                self._write(writer, batch)
            for marker in markers:
                marker.done.set()
        writer.close()

    def _write(self, writer: sqlite3.Connection, batch: list[CacheEntry]) -> None:
        created = utc_now().isoformat()
        rows = [
            (
                e.key,
                e.spec,
                e.request.kind,
                created,
                canonical_json(e.request.model_dump(mode="json")),
                e.completion.model_dump_json(),
            )
            for e in batch
        ]
        writer.execute("BEGIN IMMEDIATE")
        writer.executemany("INSERT OR IGNORE INTO llm_cache VALUES (?, ?, ?, ?, ?, ?)", rows)
        writer.execute("COMMIT")
        for entry in batch:
            self._pending.pop(entry.key, None)
