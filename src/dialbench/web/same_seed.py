"""The dialogues of one seed side by side: behind a difference between two chatbots, what each
did with the same start (a MEDAL seed's shared first user turn, a BotChat ChatSEED). A seed is
`RunStore.seed_units()`'s unit, the one chatbot figures resample and pair chatbots on; a replay
(`dialbench replay`) is in its recorded dialogue's, so the two are side by side, the columns
labelled recorded and candidate and the replies replayed (with their tool turns) marked."""

from __future__ import annotations

from pydantic import Field

from dialbench.issue_labels import ISSUES_PREFIX
from dialbench.judge.protocols.replay import reply_parts
from dialbench.ratings import flatten, named_judgments
from dialbench.replay_records import is_candidate, recorded_turns, replay_of, replayed_turns
from dialbench.schema import Dialogue, Judgment, Record, SeedContext, Turn
from dialbench.store import RunStore
from dialbench.store_contents import HUMAN
from dialbench.web.browse import chatbot_of


class JudgmentView(Record):
    """One judgment of a dialogue, its judge named as in the report; `scores` are the judged
    dimensions but the issue flags (overall, quality, a winner), which the page lists apart."""

    judge: str
    judgment: Judgment
    scores: list[tuple[str, float | str]]


class SeedColumn(Record):
    """`side`: "recorded" or "candidate" where the seed holds a replay of a recorded dialogue;
    `marked`: the turns that differ between the two, each replayed reply and its tool turns."""

    chatbot: str
    dialogue: Dialogue
    verdicts: list[JudgmentView]
    side: str | None = None
    marked: list[int] = Field(default_factory=list)


class SeedView(Record):
    """The dialogues of a seed (of the chatbots asked for), one column each, ordered by chatbot;
    their first `shared` turns are the same in every column and shown once."""

    unit: str
    seed: SeedContext | None
    chatbots: list[str]  # every chatbot with a dialogue of this seed
    missing: list[str]  # chatbots asked for that have none
    shared: int
    columns: list[SeedColumn]

    @property
    def rows(self) -> int:
        """Turn rows after the shared ones: the longest column's."""
        return max((len(c.dialogue.turns) for c in self.columns), default=0) - self.shared

    def turn(self, column: SeedColumn, row: int) -> Turn | None:
        """The turn of `column` at this row after the shared ones, or None where it ended."""
        index = self.shared + row
        return column.dialogue.turns[index] if index < len(column.dialogue.turns) else None


class SameSeed(Record):
    """Where a dialogue's seed page is, and what else grew from the seed."""

    unit: str
    other_chatbots: int
    other_dialogues: int


def same_seed(store: RunStore, dialogue_id: str) -> SameSeed:
    """Read from the seed's dialogues alone (`RunStore.seed_mates`): every dialogue page asks."""
    unit, mates = store.seed_mates(dialogue_id)
    own = mates.pop(dialogue_id) or HUMAN
    chatbots = {chatbot or HUMAN for chatbot in mates.values()} - {own}
    return SameSeed(unit=unit, other_chatbots=len(chatbots), other_dialogues=len(mates))


def _shared_turns(dialogues: list[Dialogue]) -> int:
    """How many leading turns every dialogue holds alike (none when one stands alone)."""
    if len(dialogues) < 2:
        return 0
    shared = 0
    for turns in zip(*(d.turns for d in dialogues), strict=False):
        if any(turn != turns[0] for turn in turns):
            break
        shared += 1
    return shared


def _judgment_views(judgments: list[tuple[Judgment, str]]) -> list[JudgmentView]:
    ordered = sorted(judgments, key=lambda pair: (pair[0].protocol, pair[1], pair[0].sample_index))
    return [
        JudgmentView(
            judge=judge,
            judgment=judgment,
            scores=[
                (dimension, value)
                for dimension, value in flatten(judgment.result or {})
                if not dimension.startswith(ISSUES_PREFIX)
            ],
        )
        for judgment, judge in ordered
    ]


def _replay_sides(dialogues: list[Dialogue]) -> dict[str, tuple[str, list[int]]]:
    """Each shown dialogue's side of a replay, with its turns that differ from the other side:
    a candidate's replay, and the recorded dialogue it replays (or the recorded side stored
    beside the replays), its replies that a shown candidate replaced."""
    sides: dict[str, tuple[str, list[int]]] = {}
    replaced: dict[str, set[int]] = {}
    for dialogue in dialogues:
        if is_candidate(dialogue) and (recorded := replay_of(dialogue)) is not None:
            sides[dialogue.id] = (
                "candidate",
                reply_parts(dialogue.turns, replayed_turns(dialogue)),
            )
            replaced.setdefault(recorded, set()).update(recorded_turns(dialogue))
    for dialogue in dialogues:
        if dialogue.id in sides:
            continue
        replies = replaced.get(dialogue.id, set()) | replaced.get(replay_of(dialogue) or "", set())
        if replies:
            sides[dialogue.id] = ("recorded", reply_parts(dialogue.turns, sorted(replies)))
    return sides


def seed_view(store: RunStore, unit: str, chatbots: list[str]) -> SeedView | None:
    """The seed's dialogues of `chatbots` (all when empty, else in that order); None when no
    dialogue grew from `unit`."""
    ids = store.seed_dialogues(unit)
    if not ids:
        return None
    dialogues = [d for d in (store.get(Dialogue, i) for i in ids) if d is not None]
    present = sorted({chatbot_of(d) for d in dialogues})
    order = chatbots or present
    shown = sorted(
        (d for d in dialogues if chatbot_of(d) in order),
        key=lambda d: (order.index(chatbot_of(d)), d.id),
    )
    sides = _replay_sides(shown)
    judged: dict[str, list[tuple[Judgment, str]]] = {d.id: [] for d in shown}
    for judgment, judge in named_judgments(store, list(judged)):
        judged[judgment.target.dialogue_id].append((judgment, judge))
    return SeedView(
        unit=unit,
        seed=dialogues[0].seed,
        chatbots=present,
        missing=[c for c in chatbots if c not in present],
        shared=_shared_turns(shown),
        columns=[
            SeedColumn(
                chatbot=chatbot_of(d),
                dialogue=d,
                verdicts=_judgment_views(judged[d.id]),
                side=sides[d.id][0] if d.id in sides else None,
                marked=sides[d.id][1] if d.id in sides else [],
            )
            for d in shown
        ],
    )
