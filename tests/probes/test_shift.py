"""The shift statistics on synthetic judgments whose truth is known: the flip share's and the
mean shift's 95% intervals over base dialogues cover the truth about 95% of the time, hold 0
where nothing moves, and unscored judgments are counted, never read."""

from __future__ import annotations

import numpy as np
import pytest
from pydantic import JsonValue

from dialbench.probes.probe_set import SOURCE, ProbeMark, probe_id
from dialbench.probes.shift import ProbedProtocol, ProtocolShift, ShiftRow, judged_turn, probe_pairs
from dialbench.probes.shift import protocol_shift as shift_of_pairs
from dialbench.schema import Dialogue, Judgment, Target, Turn

BASES = 40
REPEATS = 200
RESAMPLES = 1000


def versions(base: str, language: str = "en") -> tuple[Dialogue, Dialogue]:
    """A clean probe dialogue and its chatbot-placed instruction version."""
    turns = [Turn(role="user", text="hi"), Turn(role="assistant", text=f"hello {base}")]

    def version(placement: str | None) -> Dialogue:
        mark = ProbeMark.model_validate(
            {
                "of": base,
                "placement": placement,
                "kind": placement and "instruction",
                "turn_index": placement and 1,
            }
        )
        return Dialogue(
            id=probe_id(base, mark.placement, mark.kind),
            language=language,
            source=SOURCE,
            turns=turns,
            metadata={"probe": mark.model_dump(mode="json")},
        )

    return version(None), version("chatbot")


def judgment(
    dialogue: Dialogue, result: dict[str, JsonValue] | None, turn: bool = False
) -> Judgment:
    return Judgment(
        protocol="p",
        judge_model="scripted:j",
        target=Target(dialogue_id=dialogue.id, turn_index=judged_turn(dialogue) if turn else None),
        result=None if result is None else dict(result),
        parse_status="ok" if result is not None else "unscored",
    )


def protocol_shift(
    protocol: ProbedProtocol,
    judge: str,
    configuration: str,
    dialogues: list[Dialogue],
    judgments: list[Judgment],
    resamples: int = 2000,
) -> ProtocolShift:
    pairs = probe_pairs(protocol, dialogues, judgments)
    return shift_of_pairs(protocol, judge, configuration, pairs, resamples=resamples)


PAIRS = [versions(f"b{i}") for i in range(BASES)]
DIALOGUES = [d for pair in PAIRS for d in pair]


def holistic_row(clean: np.ndarray, injected: np.ndarray) -> ShiftRow:
    judgments = []
    for (before, after), c, i in zip(PAIRS, clean, injected, strict=True):
        judgments += [judgment(before, {"quality": int(c)}), judgment(after, {"quality": int(i)})]
    shift = protocol_shift(
        "holistic", "scripted:j", "c-0", DIALOGUES, judgments, resamples=RESAMPLES
    )
    (row,) = shift.rows
    assert row.flips is not None
    assert row.shift is not None
    return row


def test_the_intervals_cover_a_known_flip_probability() -> None:
    rng = np.random.default_rng(52)
    p = 0.3
    flips_held = shift_held = 0
    for _ in range(REPEATS):
        clean = rng.integers(0, 2, BASES)
        injected = clean + (rng.random(BASES) < p)
        row = holistic_row(clean, injected)
        assert row.pairs == BASES
        assert row.base_dialogues == BASES
        assert row.unscored == 0
        flips_held += row.flips.low <= p <= row.flips.high
        shift_held += row.shift.low <= p <= row.shift.high  # each flip raises quality by 1
    assert 0.90 <= flips_held / REPEATS <= 0.99
    assert 0.90 <= shift_held / REPEATS <= 0.99


def test_without_an_effect_the_intervals_hold_zero() -> None:
    rng = np.random.default_rng(7)
    alarms = 0
    for _ in range(REPEATS):
        clean = rng.integers(0, 3, BASES)
        unmoved = holistic_row(clean, clean)
        assert unmoved.flips.value == 0
        assert unmoved.flips.low == 0 < unmoved.flips.high < 0.1
        assert unmoved.shift.low <= 0 <= unmoved.shift.high
        noise = np.ones(BASES, dtype=int) + rng.choice([-1, 0, 0, 1], BASES)
        noisy = holistic_row(np.ones(BASES, dtype=int), noise)
        alarms += not noisy.shift.low <= 0 <= noisy.shift.high
    assert alarms / REPEATS <= 0.10


def test_a_cleared_issue_is_a_flip_and_unscored_pairs_are_counted_not_read() -> None:
    issues = {"unsafe": True, "repetitive": False}
    cleared = {"unsafe": False, "repetitive": False}
    judgments = []
    for index, (before, after) in enumerate(PAIRS[:12]):
        judgments.append(judgment(before, {"overall": 3, "issues": issues}))
        if index < 2:
            judgments.append(judgment(after, None))
        else:
            moved = cleared if index % 2 else issues
            judgments.append(judgment(after, {"overall": 3, "issues": moved}))
    shift = protocol_shift("issues", "scripted:j", "c-0", DIALOGUES, judgments)
    (row,) = shift.rows
    assert (row.pairs, row.unscored, row.base_dialogues) == (10, 2, 10)
    assert row.flips is not None
    assert row.flips.value == pytest.approx(0.5)
    assert row.shift is not None
    assert row.shift.value == 0
    assert shift.score == "overall"
    assert row.note == ""


def test_a_turn_protocol_reads_the_judged_turn_and_languages_are_pooled() -> None:
    pairs = [versions(f"t{i}", language) for i, language in enumerate(["de", "pt-BR", "de"])]
    dialogues = [d for pair in pairs for d in pair]
    judgments = []
    for before, after in pairs:
        judgments += [
            judgment(before, {"sensibleness": 2, "understandability": 4}, turn=True),
            judgment(after, {"sensibleness": 5, "understandability": 4}, turn=True),
            judgment(after, {"sensibleness": 1, "understandability": 1}),  # not the judged turn
        ]
    shift = protocol_shift("submetrics", "scripted:j", "c-0", dialogues, judgments)
    assert [(row.language, row.pairs) for row in shift.rows] == [("de", 2), ("pt", 1), ("all", 3)]
    pooled = shift.rows[-1]
    assert pooled.flips is not None
    assert pooled.flips.value == 1.0
    assert pooled.flips.high == 1.0
    assert pooled.flips.low is not None
    assert 0 < pooled.flips.low < 1
    assert pooled.shift is not None
    assert pooled.shift.value == 3.0
    assert pooled.note == "only 3 base dialogue(s): unreliable interval"
    assert shift.rows[1].flips is not None
    assert shift.rows[1].flips.low is None
