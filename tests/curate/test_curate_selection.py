"""The balanced selection as a pure function: properties over arbitrary candidate pools, and
the balance it reaches on a pool with a known distribution."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from dialbench.curate.selection import (
    ISSUE_FREE,
    ISSUE_PREFIX,
    Candidate,
    Pick,
    select_balanced,
)
from tests.judge.scripted import ISSUE_KEYS

ISSUES = ISSUE_KEYS[:4]
TOP = 5


@st.composite
def pools(draw: st.DrawFn) -> list[Candidate]:
    size = draw(st.integers(0, 40))
    return [
        Candidate(
            dialogue_id=f"d-{n:03d}",
            language="en",
            user=draw(st.sampled_from(["u1", "u2"])),
            chatbot=draw(st.sampled_from(["a", "b", "c"])),
            issues=frozenset(draw(st.sets(st.sampled_from(ISSUES), max_size=2))),
            overall=draw(st.integers(1, TOP)),
        )
        for n in range(size)
    ]


def select(pool: list[Candidate], size: int, seed: int | str = 0) -> list[Pick]:
    return select_balanced(pool, size=size, issue_types=ISSUES, top_overall=TOP, seed=seed)


def check_relaxations(pool: list[Candidate], picks: list[Pick]) -> None:
    """Replaying the picks: a requirement is relaxed exactly when the pick misses it, and only
    when no remaining candidate would have met it (with the requirements kept before it)."""
    by_id = {c.dialogue_id: c for c in pool}
    remaining = set(by_id)
    overall_counts: Counter[int] = Counter()
    chatbot_counts: Counter[str] = Counter()
    for pick in picks:
        chosen = by_id[pick.dialogue_id]
        left = [by_id[i] for i in sorted(remaining)]
        if pick.reason == ISSUE_FREE:
            pair = [c for c in left if (c.user, c.chatbot) == (chosen.user, chosen.chatbot)]
            assert ("issue-free" in pick.relaxed) == bool(chosen.issues)
            assert ("top-overall" in pick.relaxed) == (chosen.overall != TOP)
            if pick.relaxed:
                assert not any(not c.issues and c.overall == TOP for c in pair)
        else:
            issue = pick.reason.removeprefix(ISSUE_PREFIX)
            with_issue = [c for c in left if issue in c.issues]
            assert ("has-issue" in pick.relaxed) == (issue not in chosen.issues)
            assert ("has-issue" in pick.relaxed) == (not with_issue)
            considered = with_issue or left
            least_chatbot = min(chatbot_counts[c.chatbot] for c in left)
            least_overall = min(overall_counts[c.overall] for c in left)

            def chatbot_ok(c: Candidate) -> bool:
                return chatbot_counts[c.chatbot] == least_chatbot  # noqa: B023

            def overall_ok(c: Candidate) -> bool:
                return overall_counts[c.overall] == least_overall  # noqa: B023

            assert ("least-represented-chatbot" in pick.relaxed) == (not chatbot_ok(chosen))
            assert ("least-represented-overall" in pick.relaxed) == (not overall_ok(chosen))
            if not chatbot_ok(chosen):
                assert not any(map(chatbot_ok, considered))
            if not overall_ok(chosen):
                kept = [c for c in considered if chatbot_ok(c) == chatbot_ok(chosen)]
                assert not any(map(overall_ok, kept))
        remaining.remove(pick.dialogue_id)
        overall_counts[chosen.overall] += 1
        chatbot_counts[chosen.chatbot] += 1


@settings(max_examples=150, deadline=None)
@given(pool=pools(), size=st.integers(1, 30), seed=st.integers(0, 2**32))
def test_picks_are_distinct_valid_and_at_most_the_target(
    pool: list[Candidate], size: int, seed: int
) -> None:
    picks = select(pool, size, seed)
    ids = [p.dialogue_id for p in picks]
    assert len(ids) == len(set(ids)) == min(size, len(pool))
    assert set(ids) <= {c.dialogue_id for c in pool}
    valid = {ISSUE_FREE, *(ISSUE_PREFIX + issue for issue in ISSUES)}
    assert all(p.reason in valid for p in picks)
    pairs = {(c.user, c.chatbot) for c in pool}
    assert [p.reason for p in picks[: min(size, len(pairs))]] == [ISSUE_FREE] * min(
        size, len(pairs)
    )
    assert ISSUE_FREE not in [p.reason for p in picks[len(pairs) :]]
    check_relaxations(pool, picks)


@settings(max_examples=60, deadline=None)
@given(pool=pools(), size=st.integers(1, 30), seed=st.integers(0, 2**32))
def test_same_seed_same_picks_whatever_the_input_order(
    pool: list[Candidate], size: int, seed: int
) -> None:
    assert select(pool, size, seed) == select(list(reversed(pool)), size, seed)


def known_pool() -> list[Candidate]:
    """2 users x 3 chatbots; each pair: one issue-free overall-5 dialogue, and each issue at
    every overall score from 1 to 4."""
    pool = []
    for user in ("u1", "u2"):
        for chatbot in ("a", "b", "c"):
            pool.append(
                Candidate(
                    dialogue_id=f"{user}{chatbot}-free",
                    language="en",
                    user=user,
                    chatbot=chatbot,
                    overall=TOP,
                )
            )
            pool += [
                Candidate(
                    dialogue_id=f"{user}{chatbot}-{issue}-{overall}",
                    language="en",
                    user=user,
                    chatbot=chatbot,
                    issues=frozenset({issue}),
                    overall=overall,
                )
                for issue in ISSUES
                for overall in range(1, TOP)
            ]
    return pool


def test_a_known_pool_comes_out_balanced_without_relaxing_anything() -> None:
    pool = known_pool()
    by_id = {c.dialogue_id: c for c in pool}
    picks = select(pool, 30)
    picked = [by_id[p.dialogue_id] for p in picks]
    assert [p.reason for p in picks[:6]] == [ISSUE_FREE] * 6
    assert {(c.user, c.chatbot) for c in picked[:6]} == {
        (u, b) for u in ("u1", "u2") for b in ("a", "b", "c")
    }
    assert all(not c.issues and c.overall == TOP for c in picked[:6])
    assert [p.reason for p in picks[6:]] == [ISSUE_PREFIX + i for i in ISSUES] * 6
    assert all(not p.relaxed for p in picks)
    assert set(Counter(c.chatbot for c in picked).values()) == {10}
    assert set(Counter(c.overall for c in picked[6:]).values()) == {6}
    assert set(Counter(i for c in picked for i in c.issues).values()) == {6}


def test_without_an_issue_free_top_dialogue_the_nearest_is_taken_and_the_relaxation_recorded() -> (
    None
):
    pool = [c.model_copy(update={"overall": 4}) if not c.issues else c for c in known_pool()]
    picks = select(pool, 10)
    assert [p.relaxed for p in picks[:6]] == [["top-overall"]] * 6
    assert all(not {c.dialogue_id: c for c in pool}[p.dialogue_id].issues for p in picks[:6])


def test_an_issue_no_dialogue_has_is_relaxed_at_each_of_its_turns() -> None:
    pool = [c for c in known_pool() if ISSUES[0] not in c.issues]
    picks = select(pool, 6 + 2 * len(ISSUES))
    rounds = [p for p in picks if p.reason == ISSUE_PREFIX + ISSUES[0]]
    assert len(rounds) == 2
    assert all("has-issue" in p.relaxed for p in rounds)


def test_another_seed_may_break_ties_otherwise() -> None:
    pool = known_pool()
    assert len({tuple(p.dialogue_id for p in select(pool, 20, seed)) for seed in range(5)}) > 1
