"""The organiser page's agreement is not recomputed from every label on every view: the same
table is served while the store is unchanged, and under a stream of labels at most every
`refresh_seconds`, in the background: a view never waits for it but the first."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from web_run import WebRun

from dialbench.metaeval.agreement import HumanAgreementRow
from dialbench.schema import Annotation, Target
from dialbench.store import RunStore
from dialbench.web.annotate import LiveAgreement


def _label(web_run: WebRun, overall: int, complete: bool = True) -> None:
    with RunStore.open(web_run.path, create=False) as store, store.invocation("test") as run:
        store.add(
            [
                Annotation(
                    annotator_id=name,
                    target=Target(dialogue_id=dialogue),
                    labels={"overall": overall + n},
                    complete=complete,
                )
                for name in ("alice", "bob")
                for n, dialogue in enumerate(web_run.ids("en"))
            ],
            run,
            on_conflict="replace",
        )


def _settled(live: LiveAgreement) -> list[HumanAgreementRow]:
    """The table once the refresh this view started (if any) has finished."""
    shown = live.rows()
    if live.refreshing is not None:
        live.refreshing.join()
    return shown


def test_the_table_is_kept_while_nothing_changed_and_throttled_while_labels_stream(
    web_run: WebRun,
) -> None:
    live = LiveAgreement(web_run.path, refresh_seconds=0)

    def settled() -> list[HumanAgreementRow]:
        return _settled(live)

    assert settled() == []  # the first view computes it
    _label(web_run, overall=1, complete=False)
    assert settled() == []  # the view that finds the change shows the last table
    assert settled() == []  # labels not marked done count nowhere
    _label(web_run, overall=1)
    assert settled() == []
    first = settled()
    assert {(row.dimension, row.n_annotators) for row in first} == {("overall", 2)}
    assert settled() is first  # unchanged store: the same table, not a new computation
    live.refresh_seconds = 3600
    _label(web_run, overall=2)
    assert settled() is first  # changed, but computed a moment ago: shown as it was
    live.refresh_seconds = 0
    assert settled() is first
    assert settled() is not first
    live.close()


def test_a_killed_agreement_process_is_replaced_by_the_next_refresh(web_run: WebRun) -> None:
    """Refreshes compute the table in a process of their own, off the server's GIL; one that
    died keeps the last table shown until the next refresh starts another."""
    live = LiveAgreement(web_run.path, refresh_seconds=0)
    assert _settled(live) == []
    _label(web_run, overall=1)
    assert _settled(live) == []  # this view's refresh starts the agreement process
    first = _settled(live)
    assert {(row.dimension, row.n_annotators) for row in first} == {("overall", 2)}
    (process,) = _agreement_processes()
    os.kill(process, signal.SIGKILL)
    _label(web_run, overall=2)
    assert _settled(live) is first  # the refresh found the process gone
    assert _settled(live) is first  # this one started another, which computed the next table
    assert _agreement_processes() not in ([], [process])
    assert _settled(live) is not first
    live.close()


def _agreement_processes() -> list[int]:
    """This process's children that multiprocessing spawned."""
    return [
        int(pid.name)
        for pid in Path("/proc").iterdir()
        if pid.name.isdigit() and _parent(pid) == os.getpid() and b"spawn_main" in _cmdline(pid)
    ]


def _parent(process: Path) -> int | None:
    try:
        return int((process / "stat").read_text().rsplit(")", 1)[1].split()[1])
    except OSError:  # gone meanwhile
        return None


def _cmdline(process: Path) -> bytes:
    try:
        return (process / "cmdline").read_bytes()
    except OSError:
        return b""
