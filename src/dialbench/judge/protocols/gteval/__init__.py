"""BotChat GTEval: a self-chat against the human dialogue its ChatSEED came from (the ground
truth), both cut to the same number of utterances; which one is AI-involved?

The Arena prompt, told that exactly one of the two conversations has AI-generated utterances
(the paper's one difference). Both are cut to the shorter one's length (the paper cuts the
generated dialogue to the human one's; a self-chat shorter than its human dialogue cuts that
instead). Judged in both orders. The model wins when the judge flags the human conversation,
loses when it flags the self-chat; Both and Neither are ties.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import ClassVar

from dialbench.judge.protocols.arena import ArenaProtocol, self_chat_key
from dialbench.schema import Dialogue, speaker_turns

OUTCOME_DEFINITION = (
    "GTEval: each self-chat against the human dialogue of its ChatSEED, both cut to the shorter "
    "one's number of utterances, judged in both orders. The model wins when the judge flags the "
    "human conversation as AI-involved, loses when it flags the self-chat; Both and Neither are "
    "ties. Rates are over the scored judgments of both orders."
)


def shown_length(first: Dialogue, second: Dialogue) -> int:
    """The shorter one's utterances (tool turns are not shown, so not counted)."""
    return min(len(speaker_turns(first.turns)), len(speaker_turns(second.turns)))


class GTEvalProtocol(ArenaProtocol):
    """The arena's question and answer, about other pairs, shown cut to one length."""

    name = "gteval"
    description = "BotChat GTEval: a self-chat against its human dialogue, same length"
    judged_items: ClassVar[str] = "self-chats with the human dialogue they were seeded from"
    prompt: ClassVar[str] = "judge_gteval"

    def judges(self, dialogue: Dialogue) -> bool:
        return True  # the human dialogues are judged too, against their self-chats

    def shown_turns(self, first: Dialogue, second: Dialogue) -> int | None:
        return shown_length(first, second)

    def pairs(self, dialogues: Sequence[Dialogue]) -> Iterator[tuple[Dialogue, Dialogue]]:
        """Each finished self-chat with the human dialogue it was seeded from, both orders,
        when that dialogue is among those judged and the part shown goes past the ChatSEED."""
        by_id = {d.id: d for d in dialogues}
        for dialogue in dialogues:
            key = self_chat_key(dialogue)
            human = by_id.get(key[0]) if key is not None else None
            seed = dialogue.metadata.get("seed_utterances")
            if human is not None and isinstance(seed, int) and shown_length(dialogue, human) > seed:
                yield dialogue, human
                yield human, dialogue
