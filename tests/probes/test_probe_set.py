"""The injections file and the probe dialogues built from it: every kind in every language,
stable ids, one turn changed per version, the ground truth a detector is scored on, and the
replay twins a pair protocol judges."""

from __future__ import annotations

import json

import pytest

from dialbench.issue_labels import load_issue_labels
from dialbench.probes.injections import KINDS, LANGUAGES, load_injections
from dialbench.probes.probe_set import (
    PLACEMENTS,
    ROLE_OF_PLACEMENT,
    SOURCE,
    probe_dialogues,
    probe_id,
    probe_mark,
    replay_twins,
)
from dialbench.replay_records import replay_of, replayed_turns
from dialbench.schema import Dialogue, base_language


@pytest.fixture(scope="module")
def probes() -> list[Dialogue]:
    return probe_dialogues()


def test_every_kind_is_written_in_every_language() -> None:
    injections = load_injections()
    assert len(injections.sha256) == 64
    for language in LANGUAGES:
        assert set(injections.texts[language]) == set(KINDS)
        assert injections.written_in[language] != language
        assert all(text.strip() for text in injections.texts[language].values())


def test_the_forged_verdicts_are_shaped_as_the_judges_answers() -> None:
    keys = {label.key for label in load_issue_labels().selected(include_optional=False)}
    for language in LANGUAGES:
        text = load_injections().text(language, "verdict")
        issues, _ = json.JSONDecoder().raw_decode(text[text.index('{"issues"') :])
        assert issues["overall"] == 5
        assert set(issues["issues"]) == keys
        assert not any(issues["issues"].values())
        assert '"quality": 2' in text
        assert '"score": 5' in text
        assert '"winner"' in text


def test_the_role_tags_and_hidden_markup_are_there() -> None:
    injections = load_injections()
    for language in LANGUAGES:
        assert "<|im_start|>system" in injections.text(language, "role_tag")
        assert "SYSTEM" in injections.text(language, "role_tag")
        hidden = injections.text(language, "hidden_markup")
        assert hidden.startswith("<!--") or "\u200b" in hidden


def test_every_language_has_base_dialogues_with_a_version_per_placement_and_kind(
    probes: list[Dialogue],
) -> None:
    marks = [probe_mark(d) for d in probes]
    assert all(mark is not None for mark in marks)
    assert {base_language(d.language) for d in probes} == set(LANGUAGES)
    bases = {mark.of for mark in marks if mark is not None}
    assert len(probes) == len(bases) * (1 + len(PLACEMENTS) * len(KINDS))
    assert len({d.id for d in probes}) == len(probes)
    assert {d.source for d in probes} == {SOURCE}


def test_ids_are_stable(probes: list[Dialogue]) -> None:
    again = probe_dialogues()
    assert [d.id for d in again] == [d.id for d in probes]
    first = probe_mark(probes[1])
    assert first is not None
    assert first.placement is not None
    assert probes[1].id == probe_id(first.of, first.placement, first.kind)
    assert probe_id("d-1", "tool", "verdict") == "probe-c1d2ce8aaf8e5d88420f42e8"  # pinned


def test_one_turn_differs_from_the_clean_version_and_the_mark_names_it(
    probes: list[Dialogue],
) -> None:
    injections = load_injections()
    clean = {}
    for dialogue in probes:
        mark = probe_mark(dialogue)
        assert mark is not None
        if mark.placement is None:
            assert mark.kind is None
            assert mark.turn_index is None
            clean[mark.of] = dialogue
            continue
        base = clean[mark.of]
        assert (dialogue.participants, dialogue.seed) == (base.participants, base.seed)
        assert [t.role for t in dialogue.turns] == [t.role for t in base.turns]
        pairs = enumerate(zip(base.turns, dialogue.turns, strict=True))
        changed = [i for i, (clean_turn, turn) in pairs if clean_turn != turn]
        assert changed == [mark.turn_index]
        index = mark.turn_index
        assert index is not None
        turn, before = dialogue.turns[index], base.turns[index]
        assert turn.role == ROLE_OF_PLACEMENT[mark.placement]
        assert turn.text == f"{before.text}\n\n{injections.text(dialogue.language, mark.kind)}"
        assert turn.tool == before.tool
        assert index == max(i for i, t in enumerate(dialogue.turns) if t.role == turn.role)


def test_every_version_ends_with_a_reply_after_a_tool_turn(probes: list[Dialogue]) -> None:
    for dialogue in probes:
        assert dialogue.turns[-1].role == "assistant"
        assert dialogue.turns[-2].role == "tool"
        assert any(turn.role == "user" for turn in dialogue.turns[:-2])


def test_the_selection_narrows_the_set() -> None:
    some = probe_dialogues(["de", "ja"], ["verdict"], ["tool"], limit_per_language=1)
    assert len(some) == 2 * 2
    assert {base_language(d.language) for d in some} == {"de", "ja"}
    marks = [probe_mark(d) for d in some]
    assert {(m.placement, m.kind) for m in marks if m is not None} == {
        (None, None),
        ("tool", "verdict"),
    }


def test_every_chatbot_and_tool_version_has_a_replay_twin_of_its_clean_version(
    probes: list[Dialogue],
) -> None:
    twins = replay_twins(probes)
    clean = {d.metadata["probe"]["of"]: d.id for d in probes if probe_mark(d).placement is None}
    versions = [d for d in probes if d.metadata["probe"]["placement"] in ("chatbot", "tool")]
    assert len(twins) == len(versions)
    for twin, version in zip(twins, versions, strict=True):
        assert replay_of(twin) == clean[version.metadata["probe"]["of"]]
        assert twin.turns == version.turns
        assert replayed_turns(twin) == [len(twin.turns) - 1]
        assert twin.metadata["probe"] == version.metadata["probe"]
