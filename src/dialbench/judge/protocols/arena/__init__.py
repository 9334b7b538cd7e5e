"""BotChat Arena: which of two self-chats from the same ChatSEED, at the same length, is
AI-involved: Conversation 1, Conversation 2, Both or Neither, with the reason (Appendix B).

Pairs are the self-chats of the same ChatSEED and the same number of utterances by different
models, judged in both orders (both kept); a pair of identical dialogues is skipped. The
outcome: the model whose conversation the judge did not flag wins; Both and Neither are ties.
`result["winner"]` is first / second / tie, as metaeval's position consistency reads it. The
judge reads utterances only, as UniEval does: no tool turn.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import ClassVar, Literal

from pydantic import Field, JsonValue

from dialbench.judge.protocol import PairProtocol, Question, Result
from dialbench.judge.protocols.unieval import chats
from dialbench.llm.base import JsonSchema, Message
from dialbench.schema import Dialogue, Record, speaker_turns

REASON_MAX_CHARS = 600
CHOICES = ("Conversation 1", "Conversation 2", "Both", "Neither")
WINNER = {"Conversation 1": "second", "Conversation 2": "first", "Both": "tie", "Neither": "tie"}
OUTCOME_DEFINITION = (
    "The judge names the AI-involved conversation(s): Conversation 1, Conversation 2, Both or "
    "Neither. The model whose conversation the judge did NOT flag wins; Both and Neither are "
    "ties. Every pair of self-chats from the same ChatSEED with the same number of utterances "
    "is judged in both orders, and both verdicts count."
)


def choice_schema(choices: Sequence[str]) -> JsonSchema:
    """The answer of a pair protocol: one of its choices, with the reason for it."""
    return {
        "type": "object",
        "properties": {
            "choice": {"enum": list(choices)},
            "reason": {"type": "string", "maxLength": REASON_MAX_CHARS},
        },
        "required": ["choice", "reason"],
        "additionalProperties": False,
    }


SCHEMA = choice_schema(CHOICES)


class ArenaAnswer(Record):
    choice: Literal["Conversation 1", "Conversation 2", "Both", "Neither"]
    reason: str = Field(max_length=REASON_MAX_CHARS)


def self_chat_key(dialogue: Dialogue) -> tuple[str, int] | None:
    """(ChatSEED dialogue, utterances) of a finished self-chat; None for anything else."""
    if dialogue.source != "selfchat" or dialogue.end_reason == "error":
        return None
    seed = dialogue.metadata.get("chatseed_dialogue")
    return (seed, len(dialogue.turns)) if isinstance(seed, str) else None


class ArenaProtocol(PairProtocol):
    name = "arena"
    description = "BotChat Arena: which of two self-chats is AI-involved (1, 2, both, neither)"
    default_max_tokens = 256
    judged_items: ClassVar[str] = "self-chats of one ChatSEED and length by different models"
    prompt: ClassVar[str] = "judge_arena"

    def file_hashes(self) -> dict[str, str]:
        return self.prompt_files.hashes(self.prompt)

    def judges(self, dialogue: Dialogue) -> bool:
        return self_chat_key(dialogue) is not None

    def pairs(self, dialogues: Sequence[Dialogue]) -> Iterator[tuple[Dialogue, Dialogue]]:
        """Self-chats of the same ChatSEED and length by different models, in both orders;
        identical dialogues are not compared."""
        groups: dict[tuple[str, int], list[Dialogue]] = {}
        for dialogue in dialogues:
            if (key := self_chat_key(dialogue)) is not None:
                groups.setdefault(key, []).append(dialogue)
        for group in groups.values():
            for first in group:
                for second in group:
                    if first.participants.assistant != second.participants.assistant and [
                        t.text for t in first.turns
                    ] != [t.text for t in second.turns]:
                        yield first, second

    def shown_turns(self, first: Dialogue, second: Dialogue) -> int | None:
        """How many utterances of each conversation the judge sees (None: all of them)."""
        return None

    def questions(self, first: Dialogue, second: Dialogue) -> list[Question]:
        length = self.shown_turns(first, second)
        shown = "\n\n".join(
            f"Conversation {number}:\n{chats([t.text for t in speaker_turns(d.turns)[:length]])}"
            for number, d in ((1, first), (2, second))
        )
        messages = (
            Message(
                role="system",
                content=self.prompt_files.load(self.prompt, first.language).text.strip(),
            ),
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
