"""The dialogues of one seed side by side: behind a difference between two chatbots, what each
did with the same start (a MEDAL seed's shared first user turn, a BotChat ChatSEED). A seed is
`RunStore.seed_units()`'s unit, the one chatbot figures resample and pair chatbots on."""

from __future__ import annotations

from dialbench.issue_labels import ISSUES_PREFIX
from dialbench.ratings import flatten, named_judgments
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
    chatbot: str
    dialogue: Dialogue
    verdicts: list[JudgmentView]


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
            SeedColumn(chatbot=chatbot_of(d), dialogue=d, verdicts=_judgment_views(judged[d.id]))
            for d in shown
        ],
    )
