"""The content-addressed cache of model calls, kept in the run store.

Look-ups are single primary-key reads. Writes go through a queue to one writer thread that
commits whatever has accumulated in one transaction, so thousands of concurrent calls never wait
on SQLite, and a completed call reaches the disk within one commit of finishing. The records a
stage makes from those calls (judgments) can take the same queue (`put_records`): the event loop
then never waits on SQLite either, and a record is stored after the calls it was made from.
A write the store refuses is retried an item at a time, so one item it cannot hold loses nothing
written with it; that item is the error `flush()` and `close()` raise.
"""

from __future__ import annotations

import atexit
import queue
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import ConfigDict

from dialbench.errors import DialbenchError
from dialbench.hashing import canonical_json, content_hash
from dialbench.llm.base import Completion, Request
from dialbench.schema import Invocation, Record, StoredRecord, UsageLine
from dialbench.store import CachedCall, RunStore


class CacheEntry(Record):
    model_config = ConfigDict(extra="forbid", frozen=True)

    key: str
    spec: str
    request: Request
    completion: Completion

    def as_cached_call(self) -> CachedCall:
        return CachedCall(
            key=self.key,
            spec=self.spec,
            kind=self.request.kind,
            request=canonical_json(self.request.model_dump(mode="json")),
            completion=self.completion.model_dump_json(),
        )


def cache_key(spec: str, request: Request) -> str:
    """Backend and model (the spec), messages or prompt, parameters, seed and sample index."""
    return content_hash({"spec": spec, "request": request.model_dump(mode="json")})


class _Flush:
    def __init__(self) -> None:
        self.done = threading.Event()


@dataclass(frozen=True)
class _Records:
    records: Sequence[StoredRecord]
    run: Invocation


class StoreWriteFailed(DialbenchError):
    """The writer thread could not store what it was given (a full disk, a locked file)."""


class CallCache:
    """Use as a context manager, or call `close()`: closing waits for every queued write."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self._reader = RunStore.open(run_dir, any_thread=True)
        self._read_lock = threading.Lock()
        self._pending: dict[str, Completion] = {}
        self._queue: queue.SimpleQueue[CacheEntry | _Records | _Flush | None] = queue.SimpleQueue()
        self._failure: BaseException | None = None
        self._writer = threading.Thread(
            target=self._write_loop, name="llm-cache-writer", daemon=True
        )
        self._writer.start()
        atexit.register(self.close)

    def get(self, key: str) -> Completion | None:
        pending = self._pending.get(key)
        if pending is not None:
            return pending
        with self._read_lock:
            stored = self._reader.cached_completion(key)
        return None if stored is None else Completion.model_validate_json(stored)

    def put(self, entry: CacheEntry) -> None:
        self._pending[entry.key] = entry.completion
        self._queue.put(entry)

    def put_records(self, records: Sequence[StoredRecord], run: Invocation) -> None:
        """Store records (a stored id is replaced) after every call put so far."""
        self._queue.put(_Records(list(records), run))

    def __len__(self) -> int:
        self.flush()
        with self._read_lock:
            return self._reader.cached_call_count()

    def flush(self) -> None:
        """Block until every entry put so far is committed."""
        if self._writer.is_alive():  # else closed: everything was written on the way out
            marker = _Flush()
            self._queue.put(marker)
            marker.done.wait()
        self._raise_failure()

    def close(self) -> None:
        atexit.unregister(self.close)
        if self._writer.is_alive():
            self._queue.put(None)
            self._writer.join()
            self._reader.close()
        self._raise_failure()

    def _raise_failure(self) -> None:
        if self._failure is not None:
            failure, self._failure = self._failure, None
            raise StoreWriteFailed(
                f"{self.run_dir}: could not store finished work: {failure}"
            ) from failure

    def __enter__(self) -> CallCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def save_usage(self, run_id: str, lines: list[UsageLine]) -> None:
        with self._read_lock:
            self._reader.save_usage(run_id, lines)

    def _write_loop(self) -> None:
        writer = RunStore.open(self.run_dir)
        stopping = False
        while not stopping:
            entries: list[CacheEntry] = []
            records: list[_Records] = []
            markers: list[_Flush] = []
            item = self._queue.get()
            while True:
                if item is None:
                    stopping = True
                elif isinstance(item, _Flush):
                    markers.append(item)
                elif isinstance(item, _Records):
                    records.append(item)
                else:
                    entries.append(item)
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
            try:
                self._write(writer, entries, records)
            except Exception:  # one item nothing can store: store the others without it
                self._write_each(writer, entries, records)
            for marker in markers:
                marker.done.set()
        writer.close()

    def _write(self, writer: RunStore, entries: list[CacheEntry], records: list[_Records]) -> None:
        if entries:
            writer.add_cached_calls([entry.as_cached_call() for entry in entries])
            for entry in entries:
                self._pending.pop(entry.key, None)
        for batch in records:
            writer.add(batch.records, batch.run, on_conflict="replace")

    def _write_each(
        self, writer: RunStore, entries: list[CacheEntry], records: list[_Records]
    ) -> None:
        """What one failed write held, an item at a time, so an item the store refuses loses
        nothing else; the first refusal is kept for flush() and close() to raise, naming it."""
        for entry in entries:
            self._write_alone(writer, f"call {entry.key[:12]}", [entry], [])
        for batch in records:
            for record in batch.records:
                named = f"{type(record).__name__.lower()} {record.id}"
                self._write_alone(writer, named, [], [_Records([record], batch.run)])

    def _write_alone(
        self, writer: RunStore, named: str, entries: list[CacheEntry], records: list[_Records]
    ) -> None:
        try:
            self._write(writer, entries, records)
        except Exception as failure:
            self._failure = self._failure or StoreWriteFailed(f"{named}: {failure}")
            for entry in entries:
                self._pending.pop(entry.key, None)
