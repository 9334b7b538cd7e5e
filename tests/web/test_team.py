"""How the team is read on every request: the annotators, benchmarks and shares of dialogues are
worked out once while their stored records stay as they are, and again as soon as one changes
(a running server sees `annotate add` and `annotate revoke` from another process at once)."""

from __future__ import annotations

from web_run import WebRun

from dialbench.store import RunStore
from dialbench.web.annotators import AssignmentSettings, add_annotator, revoke_annotator
from dialbench.web.team import Team


def test_the_roster_is_kept_while_the_records_stay_and_redone_when_one_changes(
    web_run: WebRun,
) -> None:
    split = AssignmentSettings(overlap=1)
    with RunStore.open(web_run.path, create=False) as store:
        first = Team.read(store, split, ["alice"])
        alice = next(a for a in first.annotators if a.name == "alice")
        before = {item.dialogue_id for item in first.assigned(alice)}
        again = Team.read(store, split, ["alice"])
        assert again.roster is first.roster
        assert again.roster.shares["bench"] is first.roster.shares["bench"]
        assert Team.read(store, AssignmentSettings(), ["alice"]).roster is not first.roster

        with RunStore.open(web_run.path, create=False) as other_process:
            add_annotator(other_process, "dave", "bench", ["en"])
        joined = Team.read(store, split, ["alice", "dave"])
        assert joined.roster is not first.roster
        dave = next(a for a in joined.annotators if a.name == "dave")
        english = set(web_run.ids("en"))
        assert {item.dialogue_id for item in joined.assigned(dave)} <= english
        assert joined.assigned(dave)  # a share at once, taken from alice's and bob's
        assert {item.dialogue_id for item in joined.assigned(alice)} < before

        with RunStore.open(web_run.path, create=False) as other_process:
            revoke_annotator(other_process, "dave")
        left = Team.read(store, split, ["alice"])
        assert left.roster is not joined.roster
        assert next(a for a in left.annotators if a.name == "dave").revoked_at is not None
