"""Merging another store's work into this one: what a shard did, brought home."""

from __future__ import annotations

from collections import Counter

from dialbench.store.invocations import InvocationLog
from dialbench.store.model_calls import ModelCalls
from dialbench.store.records import AddResult, RecordTables
from dialbench.store.tables import TABLES


class ShardMerge(InvocationLog, RecordTables, ModelCalls):
    """A store that takes in another's runs, records, usage and cached calls."""

    def absorb(self, other: ShardMerge, *, skip_runs: frozenset[str] = frozenset()) -> AddResult:
        """Copy another store's work into this one: its runs but `skip_runs`, the records they
        stored and their usage, and every cached call. Records go through `add`, so a record
        already here unchanged is left as it is and absorbing twice changes nothing; one whose
        content changed is replaced, as the stage that made it would have done here."""
        counts = Counter[str]()
        for run in other.invocations():
            if run.id in skip_runs:
                continue
            self._keep_run(run)
            for record_type in TABLES:
                records = list(other.records(record_type, run_id=run.id))
                for start in range(0, len(records), 500):
                    added = self.add(records[start : start + 500], run, on_conflict="replace")
                    counts.update(added.model_dump())
            self._copy_usage(other, run.id)
        self._copy_cached_calls(other)
        return AddResult(**counts)
