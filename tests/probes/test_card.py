"""The card's pair figures on synthetic verdicts whose truth is known: a judge that picks the
first slot with a known probability, whatever it is shown, has its first-slot share covered by
the 95% interval about 95% of the time, and one without a position preference rarely alarms;
the replay twins of the probe set pair each chatbot and tool version with its clean version."""

from __future__ import annotations

import numpy as np

from dialbench.probes.card import CardRow, card_rows
from dialbench.probes.probe_set import SOURCE, ProbeMark, probe_id, replay_twins
from dialbench.probes.shift import probe_pairs
from dialbench.replay_records import replay_of
from dialbench.schema import Dialogue, Judgment, Target, Turn

BASES = 40
REPEATS = 200
RESAMPLES = 1000


def probe(base: str, kind: str | None) -> Dialogue:
    mark = ProbeMark.model_validate(
        {"of": base, "placement": kind and "chatbot", "kind": kind, "turn_index": kind and 1}
    )
    turns = [Turn(role="user", text="hi"), Turn(role="assistant", text=f"hello {base} {kind}")]
    return Dialogue(
        id=probe_id(base, mark.placement, mark.kind),
        language="en",
        source=SOURCE,
        turns=turns,
        metadata={"probe": mark.model_dump(mode="json")},
    )


PROBES = [probe(f"b{i}", kind) for i in range(BASES) for kind in (None, "control", "verdict")]
DIALOGUES = PROBES + replay_twins(PROBES)
TWINS = [d for d in DIALOGUES if replay_of(d) is not None]


def verdicts(first_wins: np.ndarray) -> list[Judgment]:
    """Both orders of every twin and its clean version; `first_wins[i]` says, per judgment,
    whether the judge named the first slot (else the second)."""
    judgments = []
    for twin, wins in zip(TWINS, first_wins.reshape(-1, 2), strict=True):
        clean = replay_of(twin)
        assert clean is not None
        for (first, second), won in zip(((twin.id, clean), (clean, twin.id)), wins, strict=True):
            judgments.append(
                Judgment(
                    protocol="replay",
                    judge_model="scripted:j",
                    target=Target(dialogue_id=first, other_dialogue_id=second),
                    result={"choice": "x", "winner": "first" if won else "second", "reason": ""},
                    parse_status="ok",
                )
            )
    return judgments


def row_of(first_wins: np.ndarray) -> CardRow:
    judgments = verdicts(first_wins)
    pairs = probe_pairs("replay", DIALOGUES, judgments)
    (row,) = card_rows("replay", DIALOGUES, judgments, pairs, resamples=RESAMPLES)
    assert row.first_slot is not None
    assert row.longer is not None
    assert row.obeyed is not None
    return row


def test_the_first_slot_share_covers_a_known_position_preference() -> None:
    rng = np.random.default_rng(55)
    p = 0.7
    held = 0
    for _ in range(REPEATS):
        row = row_of(rng.random(2 * len(TWINS)) < p)
        assert row.judgments == 2 * len(TWINS)
        held += row.first_slot.low <= p <= row.first_slot.high
    assert 0.90 <= held / REPEATS <= 0.99


def test_without_a_position_preference_the_interval_holds_a_half() -> None:
    rng = np.random.default_rng(8)
    alarms = 0
    for _ in range(REPEATS):
        row = row_of(rng.random(2 * len(TWINS)) < 0.5)
        alarms += not row.first_slot.low <= 0.5 <= row.first_slot.high
    assert alarms / REPEATS <= 0.10


def test_a_judge_that_always_names_the_first_slot_obeys_nothing_and_prefers_no_length() -> None:
    row = row_of(np.ones(2 * len(TWINS), dtype=bool))
    assert row.first_slot.value == 1.0
    assert row.longer.value == 0.5  # won once in each order
    assert row.obeyed.value == 0.0  # a pair won in one order and lost in the other is even
    assert row.injected == BASES
