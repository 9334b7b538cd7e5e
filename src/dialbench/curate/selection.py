"""MEDAL's balanced selection over one language's judged dialogues, as a pure function.

First one issue-free dialogue with the top overall score per user-model x chatbot pair; then,
cycling over the issue types, one dialogue with that issue that best improves the
representation of the least-represented overall score and chatbot. Ties go to a seeded RNG over
candidates in id order, so the same input and seed give the same picks in the same order.

"Least represented" counts only the classes (scores, chatbots) that still have an unpicked
candidate: a score no dialogue received cannot be improved, so requiring it would only record
noise. When no candidate meets a requirement it is relaxed: the nearest candidate is taken
(fewest issues, highest score; the least-represented class that can be had) and the relaxed
requirement is recorded on the pick.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import cycle
from typing import Literal, TypeVar

from pydantic import ConfigDict, Field

from dialbench.schema import Record

Requirement = Literal[
    "issue-free",
    "top-overall",
    "has-issue",
    "least-represented-overall",
    "least-represented-chatbot",
]
REQUIREMENTS: dict[Requirement, str] = {
    "issue-free": "the pair's dialogue has no issue",
    "top-overall": "the pair's dialogue has the top overall score",
    "has-issue": "the dialogue has the issue of this round",
    "least-represented-overall": "its overall score is among the least represented so far",
    "least-represented-chatbot": "its chatbot is among the least represented so far",
}
ISSUE_FREE = "issue-free"
ISSUE_PREFIX = "issue:"
T = TypeVar("T")


class Candidate(Record):
    """One judged dialogue as curation sees it: who took part, what the judge found."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    dialogue_id: str = Field(min_length=1)
    language: str
    user: str
    chatbot: str
    issues: frozenset[str] = frozenset()
    overall: int
    comments: dict[str, str] = Field(default_factory=dict)


class Pick(Record):
    """A selected dialogue: `reason` is `issue-free` (first step) or `issue:KEY` (second)."""

    dialogue_id: str
    reason: str
    relaxed: list[Requirement] = Field(default_factory=list)


def _fewest(pool: Sequence[T], key: Callable[[T], tuple[int, ...]], rng: random.Random) -> T:
    """A random one of the pool's items with the smallest key."""
    best = min(map(key, pool))
    return rng.choice([item for item in pool if key(item) == best])


def _issue_free_of_pair(
    pool: Sequence[Candidate], top_overall: int, rng: random.Random
) -> tuple[Candidate, list[Requirement]]:
    chosen = _fewest(pool, lambda c: (len(c.issues), top_overall - c.overall), rng)
    relaxed: list[Requirement] = []
    if chosen.issues:
        relaxed.append("issue-free")
    if chosen.overall != top_overall:
        relaxed.append("top-overall")
    return chosen, relaxed


def _balanced_with_issue(
    remaining: Sequence[Candidate],
    issue: str,
    overall_counts: Counter[int],
    chatbot_counts: Counter[str],
    rng: random.Random,
) -> tuple[Candidate, list[Requirement]]:
    relaxed: list[Requirement] = []
    pool = [c for c in remaining if issue in c.issues]
    if not pool:
        pool = list(remaining)
        relaxed.append("has-issue")
    least_overall = min(overall_counts[c.overall] for c in remaining)
    least_chatbot = min(chatbot_counts[c.chatbot] for c in remaining)

    def key(c: Candidate) -> tuple[int, ...]:
        """Both least represented first; else keep the chatbot's balance before the score's."""
        overall, chatbot = overall_counts[c.overall], chatbot_counts[c.chatbot]
        return (chatbot > least_chatbot, overall > least_overall, overall, chatbot)

    chosen = _fewest(pool, key, rng)
    if overall_counts[chosen.overall] > least_overall:
        relaxed.append("least-represented-overall")
    if chatbot_counts[chosen.chatbot] > least_chatbot:
        relaxed.append("least-represented-chatbot")
    return chosen, relaxed


def select_balanced(
    candidates: Sequence[Candidate],
    *,
    size: int,
    issue_types: Sequence[str],
    top_overall: int,
    seed: int | str,
) -> list[Pick]:
    """Up to `size` picks in selection order; fewer only when the candidates run out."""
    rng = random.Random(seed)
    remaining = {c.dialogue_id: c for c in sorted(candidates, key=lambda c: c.dialogue_id)}
    picks: list[Pick] = []
    overall_counts: Counter[int] = Counter()
    chatbot_counts: Counter[str] = Counter()

    def take(chosen: Candidate, reason: str, relaxed: list[Requirement]) -> None:
        del remaining[chosen.dialogue_id]
        overall_counts[chosen.overall] += 1
        chatbot_counts[chosen.chatbot] += 1
        picks.append(Pick(dialogue_id=chosen.dialogue_id, reason=reason, relaxed=relaxed))

    pairs = sorted({(c.user, c.chatbot) for c in remaining.values()})
    rng.shuffle(pairs)  # when pairs outnumber `size`, which ones go first is left to the seed
    for pair in pairs:
        if len(picks) >= size:
            return picks
        of_pair = [c for c in remaining.values() if (c.user, c.chatbot) == pair]
        chosen, relaxed = _issue_free_of_pair(of_pair, top_overall, rng)
        take(chosen, ISSUE_FREE, relaxed)
    for issue in cycle(issue_types):
        if len(picks) >= size or not remaining:
            break
        chosen, relaxed = _balanced_with_issue(
            list(remaining.values()), issue, overall_counts, chatbot_counts, rng
        )
        take(chosen, ISSUE_PREFIX + issue, relaxed)
    return picks
