"""Where a recorded dialogue can be replayed: each assistant reply with the tool turns just
before it (its calls) is one context's recorded part, and everything before that its prefix.

A replay keeps the user's turns as recorded, so the user of a replayed dialogue answers the
recorded chatbot, not the candidate: with mode `every`, each reply is the candidate's answer to
a conversation the recorded chatbot led up to, never a new conversation.
"""

from __future__ import annotations

from dataclasses import dataclass

from dialbench.replay.config import ReplayMode
from dialbench.replay_records import reply_start
from dialbench.schema import Dialogue, Turn


@dataclass(frozen=True)
class Context:
    """One recorded reply to replay: the turns before it, and its own (tool turns, reply)."""

    start: int
    reply: int

    def prefix(self, dialogue: Dialogue) -> list[Turn]:
        return dialogue.turns[: self.start]

    def recorded(self, dialogue: Dialogue) -> list[Turn]:
        """The recorded chatbot's part: its tool turns and its reply."""
        return dialogue.turns[self.start : self.reply + 1]


def contexts(dialogue: Dialogue, mode: ReplayMode) -> list[Context]:
    """The dialogue's replayable replies in order (of mode `last`: the final one): an assistant
    reply with a user turn somewhere before it; a reply no user turn precedes (a greeting) has
    nothing to answer."""
    found = []
    for index, turn in enumerate(dialogue.turns):
        if turn.role != "assistant":
            continue
        start = reply_start(dialogue.turns, index)
        if any(t.role == "user" for t in dialogue.turns[:start]):
            found.append(Context(start=start, reply=index))
    return found[-1:] if mode == "last" else found
