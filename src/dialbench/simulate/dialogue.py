"""One dialogue: validated user turns and chatbot replies, in turn, until an end.

A user turn is tried until the validator accepts it or the attempts run out; each retry sees the
rejected attempt and its feedback. A turn that never passes is kept as an empty user turn holding
all its attempts (so acceptance rates count it) and ends the dialogue `validation_failed`.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import Field

from dialbench.llm.base import Conversation
from dialbench.llm.runner import CallFailed
from dialbench.schema import EndReason, GenerationAttempt, Record, SeedContext, Turn
from dialbench.simulate.chatbot import Chatbot
from dialbench.simulate.transcript import split_end_marker
from dialbench.simulate.user import Retry, UserAgent
from dialbench.simulate.validator import Validator

EMPTY_FEEDBACK = "the message was empty"


class UserTurn(Record):
    """The outcome of writing one user turn: the accepted text (if any) and every attempt."""

    text: str | None = Field(description="accepted text without the end marker; None = failed")
    ends_dialogue: bool = False
    attempts: list[GenerationAttempt]

    def as_turn(self, model: str) -> Turn:
        failed = self.text is None
        return Turn(
            role="user",
            text=self.text or "",
            model=model,
            attempts=self.attempts,
            metadata={"validation_failed": True} if failed else {},
        )


class Outcome(Record):
    """What a dialogue run produced, before it becomes a stored `Dialogue`."""

    turns: list[Turn]
    end_reason: EndReason
    error: str | None = None
    end_attempts: list[GenerationAttempt] = Field(
        default_factory=list, description="attempts of a final turn that was only the end marker"
    )
    session: str | None = Field(default=None, description="a stateful chatbot's session")


async def write_user_turn(
    user: UserAgent,
    validator: Validator | None,
    context: SeedContext,
    turns: Sequence[Turn],
    max_attempts: int,
) -> UserTurn:
    attempts: list[GenerationAttempt] = []
    retry: Retry | None = None
    for attempt_index in range(max_attempts):
        message = await user.write(context, turns, retry, attempt_index)
        text, ends = split_end_marker(message)
        if not text and not (ends and turns):
            attempt = GenerationAttempt(text=message, verdict="rejected", feedback=EMPTY_FEEDBACK)
        elif validator is None:
            attempt = GenerationAttempt(text=message)
        else:
            attempt = await validator.judge(context, turns, message)
        attempts.append(attempt)
        if attempt.verdict != "rejected":
            return UserTurn(text=text, ends_dialogue=ends, attempts=attempts)
        retry = Retry(rejected=message, feedback=attempt.feedback or EMPTY_FEEDBACK)
    return UserTurn(text=None, attempts=attempts)


class DialogueLoop:
    """Plays one chatbot against the user agent from an already written first turn."""

    def __init__(
        self,
        user: UserAgent,
        validator: Validator | None,
        chatbot: Chatbot,
        *,
        turn_attempts: int,
        max_utterances: int,
        conversation: Conversation | None = None,
    ) -> None:
        """`conversation`: the dialogue's id, language and session, for a bot of the user's
        own."""
        self.user = user
        self.validator = validator
        self.chatbot = chatbot
        self.turn_attempts = turn_attempts
        self.max_utterances = max_utterances
        self.conversation = conversation

    async def run(self, context: SeedContext, first: UserTurn) -> Outcome:
        user_model = self.user.model.spec
        turns = [first.as_turn(user_model)]
        if first.text is None:
            return Outcome(turns=turns, end_reason="validation_failed")
        try:
            while len(turns) < self.max_utterances:
                if turns[-1].role == "user":
                    turns.append(await self.chatbot.reply(turns, self.conversation))
                    continue
                user_turn = await write_user_turn(
                    self.user, self.validator, context, turns, self.turn_attempts
                )
                if user_turn.text is None:
                    turns.append(user_turn.as_turn(user_model))
                    return Outcome(turns=turns, end_reason="validation_failed")
                if not user_turn.text:
                    return Outcome(
                        turns=turns, end_reason="natural_end", end_attempts=user_turn.attempts
                    )
                turns.append(user_turn.as_turn(user_model))
                if user_turn.ends_dialogue:
                    turns[-1].metadata["ends_dialogue"] = True
                    return Outcome(turns=turns, end_reason="natural_end")
        except CallFailed as failure:
            return Outcome(turns=turns, end_reason="error", error=str(failure))
        return Outcome(turns=turns, end_reason="turn_cap")
