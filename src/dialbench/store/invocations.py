"""The store's log of invocations (the `runs` table): each command's record, from `running` to
how it ended, and the invocations a killed process left `running` marked `interrupted`."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Self

from dialbench.errors import DialbenchError
from dialbench.machine import computed_on
from dialbench.schema import Invocation, InvocationStatus, utc_now
from dialbench.store.connection import StoreConnection
from dialbench.store.tables import TABLES, record_json
from dialbench.version import __version__


class InvocationLog(StoreConnection):
    """The invocations of the commands that worked on a store."""

    @classmethod
    def open(cls, run_dir: str | Path, *, create: bool = True, any_thread: bool = False) -> Self:
        """Open the store as `StoreConnection.open` does, and mark the invocations a killed
        process left `running` as `interrupted`: every command that opens a store sees them so."""
        store = super().open(run_dir, create=create, any_thread=any_thread)
        store._mark_interrupted_invocations()
        return store

    def start_invocation(self, command: str, config: dict[str, Any] | None = None) -> Invocation:
        run = Invocation(
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
                (run.id, run.command, run.status, run.started_at.isoformat(), record_json(run)),
            )
        return run

    def finish_invocation(
        self, run: Invocation, status: InvocationStatus = "finished"
    ) -> Invocation:
        ended = None if status == "interrupted" else utc_now()
        done = run.model_copy(
            update={"status": status, "finished_at": ended, "processor": computed_on()}
        )
        with self.transaction() as db:
            db.execute(
                "UPDATE runs SET status = ?, record = ? WHERE id = ?",
                (status, record_json(done), run.id),
            )
        return done

    @contextmanager
    def invocation(
        self, command: str, config: dict[str, Any] | None = None
    ) -> Iterator[Invocation]:
        """A run record that ends `finished`, or `failed` if the block raises.

        A block that rejects its input (a `DialbenchError`) before storing anything leaves no
        run behind: nothing was done, so there is nothing to account for.
        """
        run = self.start_invocation(command, config)
        try:
            yield run
        except DialbenchError:
            if self._run_stored_anything(run):
                self.finish_invocation(run, "failed")
            else:
                with self.transaction() as db:
                    db.execute("DELETE FROM runs WHERE id = ?", (run.id,))
            raise
        except BaseException:
            self.finish_invocation(run, "failed")
            raise
        self.finish_invocation(run)

    def invocations(self) -> list[Invocation]:
        rows = self._db.execute("SELECT record FROM runs ORDER BY started_at, id")
        return [Invocation.model_validate_json(record) for (record,) in rows]

    def _keep_run(self, run: Invocation) -> None:
        """Store another store's run as it is there: added, or the one here of that id brought
        to its status and record."""
        with self.transaction() as db:
            db.execute(
                "INSERT INTO runs (id, command, status, started_at, record) "
                "VALUES (?,?,?,?,?) ON CONFLICT (id) "
                "DO UPDATE SET status = excluded.status, record = excluded.record",
                (run.id, run.command, run.status, run.started_at.isoformat(), record_json(run)),
            )

    def _run_stored_anything(self, run: Invocation) -> bool:
        tables = [table.name for table in TABLES.values()] + ["llm_usage"]
        return any(
            self._db.execute(f"SELECT 1 FROM {name} WHERE run_id = ? LIMIT 1", (run.id,)).fetchone()
            for name in tables
        )

    def _mark_interrupted_invocations(self) -> None:
        """Runs still `running` whose process on this host is gone were killed: say so."""
        host = socket.gethostname()
        rows = self._db.execute("SELECT record FROM runs WHERE status = 'running'").fetchall()
        for (record,) in rows:
            run = Invocation.model_validate_json(record)
            if run.host == host and run.pid is not None and not _process_exists(run.pid):
                self.finish_invocation(run, "interrupted")


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True
