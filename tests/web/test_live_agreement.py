"""The organiser page's agreement is not recomputed from every label on every view: the same
table is served while the store is unchanged, and under a stream of labels at most every
`refresh_seconds`, in the background: a view never waits for it but the first."""

from __future__ import annotations

from web_run import WebRun

from dialbench.metaeval.agreement import AgreementRow
from dialbench.schema import Annotation, Target
from dialbench.store import RunStore
from dialbench.web.annotate import LiveAgreement


def _label(web_run: WebRun, overall: int, complete: bool = True) -> None:
    with RunStore.open(web_run.path, create=False) as store, store.run("test") as run:
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


def test_the_table_is_kept_while_nothing_changed_and_throttled_while_labels_stream(
    web_run: WebRun,
) -> None:
    live = LiveAgreement(web_run.path, refresh_seconds=0)

    def settled() -> list[AgreementRow]:
        """The table once the refresh this view started (if any) has finished."""
        shown = live.rows()
        if live.refreshing is not None:
            live.refreshing.join()
        return shown

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
