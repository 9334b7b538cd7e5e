"""Replay: a candidate chatbot's replay of a recorded conversation (`dialbench replay`) beside
the recorded one; the user turns are the same, so which version's assistant replies are better:
Conversation 1, Conversation 2 or Tie, with a short reason.

Pairs are each finished replay (source `replay`, not ended `error`) with the dialogue it
replays (`metadata.replay_of`) when that is among those judged, in both orders (both kept, so
position bias shows). Where the recorded dialogue is not among them (`--source replay`), the
recorded side stored beside the replays (a replay whose replies are not its chatbot's) stands in
for it. Both versions are shown up to the last reply replayed (what the user said after the
recorded reply would tell the judge which one it was), with tool turns (a reply that contradicts
its tool's result is what a judge must see), and the turns that differ, each replayed reply and
the tool turns just before it (`metadata.replayed_turns`, `metadata.recorded_turns`), marked
`>> `. A replay that wrote the recorded replies again is asked too (a tie, not a context
dropped). The choice is of the better
version: `result["winner"]` is first / second / tie, as metaeval's position consistency reads
it, and the candidate wins a judgment when the winner is the position it was shown in
(`figures/observations.py`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import ClassVar, Literal

from pydantic import Field, JsonValue

from dialbench.judge.numbered_transcript import numbered_transcript
from dialbench.judge.protocol import PairProtocol, Question, Result
from dialbench.judge.protocols.arena import REASON_MAX_CHARS, choice_schema
from dialbench.llm.base import Message
from dialbench.replay_records import (
    is_candidate,
    recorded_turns,
    replay_of,
    replayed_turns,
    reply_start,
)
from dialbench.schema import Dialogue, Record, Turn

CHOICES = ("Conversation 1", "Conversation 2", "Tie")
WINNER = {"Conversation 1": "first", "Conversation 2": "second", "Tie": "tie"}
OUTCOME_DEFINITION = (
    "Each finished replay is judged against the recorded dialogue it replays, both shown up to "
    "the last reply replayed, with their tool turns and the replies that differ marked, in both "
    "orders; both verdicts count. The judge names the version whose assistant replies are "
    "better (Conversation 1, Conversation 2 or Tie); the candidate wins a judgment when it names "
    "the candidate's version, and ties when it answers Tie."
)
SCHEMA = choice_schema(CHOICES)


class ReplayAnswer(Record):
    choice: Literal["Conversation 1", "Conversation 2", "Tie"]
    reason: str = Field(max_length=REASON_MAX_CHARS)


def are_replies(turns: Sequence[Turn], replies: Sequence[int]) -> bool:
    """Whether every index is an assistant turn of `turns` (and there is one)."""
    return bool(replies) and all(
        0 <= i < len(turns) and turns[i].role == "assistant" for i in replies
    )


def reply_parts(turns: Sequence[Turn], replies: Sequence[int]) -> list[int]:
    """Each reply with the tool turns just before it, which belong to it, in turn order; none
    when an index is no reply of `turns`."""
    if not are_replies(turns, replies):
        return []
    return sorted({i for reply in replies for i in range(reply_start(turns, reply), reply + 1)})


def _same_recording(dialogue: Dialogue, other: Dialogue) -> bool:
    """Whether `other` is the recording a candidate's replay `dialogue` replays: the recorded
    dialogue itself, or the recorded side stored beside it."""
    recorded = replay_of(dialogue)
    return recorded is not None and recorded in (other.id, replay_of(other))


def replies_shown(dialogue: Dialogue, other: Dialogue) -> list[int]:
    """The replies of `dialogue` that differ from `other`'s, when one is a candidate's replay
    of the other (or of the recording the other is the recorded side of); none otherwise."""
    if is_candidate(dialogue) and _same_recording(dialogue, other):
        return replayed_turns(dialogue)
    if is_candidate(other) and _same_recording(other, dialogue):
        return recorded_turns(other)
    return []


def shown_turns(dialogue: Dialogue, replies: Sequence[int]) -> tuple[list[Turn], list[int]]:
    """The turns the judge sees, up to the last reply (all when none is given), and the marked."""
    if not are_replies(dialogue.turns, replies):
        return list(dialogue.turns), []
    return dialogue.turns[: max(replies) + 1], reply_parts(dialogue.turns, replies)


class ReplayProtocol(PairProtocol):
    name = "replay"
    description = "a candidate's replay of a recorded conversation against it: better replies"
    default_max_tokens = 256
    judged_items: ClassVar[str] = "replays (dialbench replay) with the recorded dialogues"
    prompt: ClassVar[str] = "judge_replay"

    def file_hashes(self) -> dict[str, str]:
        return self.prompt_files.hashes(self.prompt)

    def judges(self, dialogue: Dialogue) -> bool:
        """The recorded dialogues are judged too, against their replays; neither a replay nor a
        recording that ended in an error is (a recording that did is never replayed)."""
        return dialogue.end_reason != "error"

    def pairs(self, dialogues: Sequence[Dialogue]) -> Iterator[tuple[Dialogue, Dialogue]]:
        """Each finished candidate's replay with its recorded dialogue (or the recorded side
        beside it), both orders, where the replies are where the metadata says. A candidate that
        wrote the recorded replies again is asked too: a tie to count, not a context to drop."""
        by_id = {d.id: d for d in dialogues}
        sides = {replay_of(d): d for d in dialogues if replay_of(d) and not is_candidate(d)}
        for replay in dialogues:
            recorded_id = replay_of(replay)
            if recorded_id is None or not is_candidate(replay) or replay.end_reason == "error":
                continue
            recorded = by_id.get(recorded_id) or sides.get(recorded_id)
            if recorded is None:
                continue
            replies, recorded_at = replayed_turns(replay), recorded_turns(replay)
            if len(replies) != len(recorded_at) or not (
                are_replies(replay.turns, replies) and are_replies(recorded.turns, recorded_at)
            ):
                continue
            yield replay, recorded
            yield recorded, replay

    def questions(self, first: Dialogue, second: Dialogue) -> list[Question]:
        shown = []
        for number, (dialogue, other) in enumerate(((first, second), (second, first)), 1):
            turns, marked = shown_turns(dialogue, replies_shown(dialogue, other))
            shown.append(f"Conversation {number}:\n{numbered_transcript(turns, marked)}")
        messages = (
            Message(
                role="system",
                content=self.prompt_files.load(self.prompt, first.language).text.strip(),
            ),
            Message(role="user", content="\n\n".join(shown)),
        )
        return [Question(name=self.name, messages=messages, json_schema=SCHEMA, params=self.params)]

    def result(self, answers: Mapping[str, JsonValue]) -> Result:
        answer = ReplayAnswer.model_validate(answers[self.name])
        return {
            "choice": answer.choice,
            "winner": WINNER[answer.choice],
            "reason": answer.reason.strip(),
        }
