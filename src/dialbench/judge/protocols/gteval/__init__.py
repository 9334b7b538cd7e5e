"""BotChat GTEval: a self-chat against the human dialogue its ChatSEED came from (the ground
truth), both cut to the same number of utterances; which one is AI-involved?

The Arena prompt, told that exactly one of the two conversations has AI-generated utterances
(the paper's one difference). Both are cut to the shorter one's length (the paper cuts the
generated dialogue to the human one's; a self-chat shorter than its human dialogue cuts that
instead). Judged in both orders. The model wins when the judge flags the human conversation,
loses when it flags the self-chat; Both and Neither are ties.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import ClassVar

from pydantic import JsonValue

from dialbench.judge.protocol import PairProtocol, Question, Result, hashes
from dialbench.judge.protocols.arena import SCHEMA, WINNER, ArenaAnswer, self_chat_key
from dialbench.judge.protocols.unieval import chats
from dialbench.llm.base import Message
from dialbench.prompts import load_prompt
from dialbench.schema import Dialogue

OUTCOME_DEFINITION = (
    "GTEval: each self-chat against the human dialogue of its ChatSEED, both cut to the shorter "
    "one's number of utterances, judged in both orders. The model wins when the judge flags the "
    "human conversation as AI-involved, loses when it flags the self-chat; Both and Neither are "
    "ties. Rates are over the scored judgments of both orders."
)


def shown_length(first: Dialogue, second: Dialogue) -> int:
    return min(len(first.turns), len(second.turns))


class GTEvalProtocol(PairProtocol):
    name = "gteval"
    description = "BotChat GTEval: a self-chat against its human dialogue, same length"
    default_max_tokens = 256
    judged_items: ClassVar[str] = "self-chats with the human dialogue they were seeded from"

    def file_hashes(self) -> dict[str, str]:
        return hashes(load_prompt("judge_gteval", __name__))

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

    def questions(self, first: Dialogue, second: Dialogue) -> list[Question]:
        length = shown_length(first, second)
        shown = "\n\n".join(
            f"Conversation {number}:\n{chats([t.text for t in d.turns[:length]])}"
            for number, d in ((1, first), (2, second))
        )
        messages = (
            Message(role="system", content=load_prompt("judge_gteval", __name__).text.strip()),
            Message(role="user", content=shown),
        )
        return [Question(name=self.name, messages=messages, json_schema=SCHEMA, params=self.params)]

    def result(self, answers: Mapping[str, JsonValue]) -> Result:
        answer = ArenaAnswer.model_validate(answers[self.name])
        return {
            "choice": answer.choice,
            "winner": WINNER[answer.choice],
            "reason": answer.reason.strip(),
        }
