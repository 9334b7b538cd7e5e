"""The model calls a store keeps: the cache of completed calls (a re-run makes none again) and
each run's usage lines per role and model."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dialbench.schema import UsageLine, utc_now
from dialbench.store.connection import StoreConnection
from dialbench.store.tables import record_json

_KEEP_CALLS = "INSERT OR IGNORE INTO llm_cache VALUES (?, ?, ?, ?, ?, ?)"
_SAVE_USAGE = "INSERT OR REPLACE INTO llm_usage VALUES (?, ?, ?, ?)"


@dataclass(frozen=True)
class CachedCall:
    """One completed model call as the cache keeps it: request and completion as JSON."""

    key: str
    spec: str
    kind: str
    request: str
    completion: str


class ModelCalls(StoreConnection):
    """The model-call cache and the usage lines."""

    def cached_completion(self, key: str) -> str | None:
        """The stored completion (JSON) of the call with this cache key, if it was made."""
        row = self._db.execute("SELECT completion FROM llm_cache WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def add_cached_calls(self, calls: Sequence[CachedCall]) -> None:
        """Store completed calls in one transaction; a key already stored keeps its first answer."""
        created = utc_now().isoformat()
        rows = [(c.key, c.spec, c.kind, created, c.request, c.completion) for c in calls]
        with self.transaction() as db:
            db.executemany(_KEEP_CALLS, rows)

    def cached_call_count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM llm_cache").fetchone()[0])

    def save_usage(self, run_id: str, lines: Sequence[UsageLine]) -> None:
        """One run's usage per role and model; saving again replaces that run's lines."""
        rows = [(run_id, line.role, line.model, record_json(line)) for line in lines]
        with self.transaction() as db:
            db.executemany(_SAVE_USAGE, rows)

    def usage(self) -> list[UsageLine]:
        """Usage of every run added up per (role, model), in that order."""
        total: dict[tuple[str, str], UsageLine] = {}
        for (record,) in self._db.execute("SELECT record FROM llm_usage"):
            line = UsageLine.model_validate_json(record)
            key = (line.role, line.model)
            total[key] = total[key] + line if key in total else line
        return [total[key] for key in sorted(total)]

    def _copy_usage(self, other: ModelCalls, run_id: str) -> None:
        """Another store's usage lines of one run, as they are there."""
        usage = other._db.execute("SELECT * FROM llm_usage WHERE run_id = ?", (run_id,))
        with self.transaction() as db:
            db.executemany(_SAVE_USAGE, usage)

    def _copy_cached_calls(self, other: ModelCalls) -> None:
        """Every call another store's cache holds, a few hundred a transaction; a key already
        here keeps its first answer."""
        calls = other._db.execute("SELECT * FROM llm_cache")
        while rows := calls.fetchmany(500):
            with self.transaction() as db:
                db.executemany(_KEEP_CALLS, rows)
