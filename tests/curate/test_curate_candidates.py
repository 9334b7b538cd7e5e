"""Which verdict labels a dialogue: the judge's sample 0, never an unscored one."""

from __future__ import annotations

from pathlib import Path

from dialbench.curate.candidates import judged_dialogues
from dialbench.schema import Dialogue, Judgment, Target
from dialbench.store import RunStore
from tests.curate.known_store import JUDGE, dialogue, verdict


def test_sample_0_labels_and_an_unscored_sample_0_leaves_the_dialogue_out(tmp_path: Path) -> None:
    labelled, unlabelled, turn_judged = dialogue("es", 1), dialogue("es", 2), dialogue("es", 3)

    def judgment(
        d: Dialogue, sample: int, result: dict[str, object] | None, turn: int | None = None
    ) -> Judgment:
        return Judgment(
            protocol="issues",
            judge_model=JUDGE,
            target=Target(dialogue_id=d.id, turn_index=turn),
            sample_index=sample,
            parse_status="ok" if result else "unscored",
            result=result,  # type: ignore[arg-type]
        )

    with RunStore.open(tmp_path) as store, store.invocation("test") as run:
        store.add([labelled, unlabelled, turn_judged], run)
        store.add(
            [
                judgment(labelled, 0, verdict("es", 1)),
                judgment(labelled, 1, verdict("es", 2)),
                judgment(unlabelled, 0, None),
                judgment(unlabelled, 1, verdict("es", 2)),
                judgment(turn_judged, 0, verdict("es", 3), turn=1),
            ],
            run,
        )
        judged = judged_dialogues(store, None)
    [candidate] = judged.candidates
    assert candidate.dialogue_id == labelled.id
    assert candidate.issues == {"uninterpretable"}
    assert candidate.overall == 2
    assert judged.left_out == {"unscored": [unlabelled.id], "not-judged": [turn_judged.id]}
