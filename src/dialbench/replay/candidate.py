"""The candidate's reply in one context: the recorded prefix as chat messages, then as many
rounds of tool calls as it makes (each answered from the recording), then its text.

The prefix's tool turns reach a candidate that takes tools as the OpenAI shape has them (an
assistant message with its calls, a tool message per result; a call the log kept no id for gets
one from its turn's place). A candidate that takes none (`http:` bots) is shown the prefix's
utterances alone, as a simulation shows a chatbot, and is counted as offered no tools.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field

from dialbench.llm.base import Conversation, GenerationParams, Message, ToolCall
from dialbench.llm.reply_text import reply_metadata
from dialbench.llm.role_model import Model
from dialbench.llm.runner import CallFailed
from dialbench.replay.recorded_tools import (
    NOT_RECORDED,
    parsed_arguments,
    recorded_answer,
    tool_definitions,
)
from dialbench.schema import Dialogue, ToolUse, Turn, speaker_turns


def _calls(turns: Sequence[tuple[int, Turn, ToolUse]]) -> list[Message]:
    """Recorded tool turns in a row: the assistant message that made the calls, then a tool
    message per result; a call the log kept no id for is named by its turn's place."""
    ids = [tool.call_id or f"call_{index}" for index, _, tool in turns]
    made = tuple(
        ToolCall(id=id_, name=tool.name, arguments=tool.shown_arguments())
        for id_, (_, _, tool) in zip(ids, turns, strict=True)
    )
    return [
        Message(role="assistant", content="", tool_calls=made),
        *(
            Message(role="tool", content=turn.text, tool_call_id=id_)
            for id_, (_, turn, _) in zip(ids, turns, strict=True)
        ),
    ]


def prefix_messages(prefix: Sequence[Turn], *, with_tools: bool) -> list[Message]:
    """The recorded turns as the candidate's history; without tools, the utterances alone."""
    if not with_tools:
        return [Message(role=t.role, content=t.text) for t in speaker_turns(prefix)]
    messages: list[Message] = []
    pending: list[tuple[int, Turn, ToolUse]] = []
    for index, turn in enumerate(prefix):
        if turn.tool is not None:
            pending.append((index, turn, turn.tool))
            continue
        messages += _calls(pending) if pending else []
        pending = []
        messages.append(Message(role=turn.role, content=turn.text))
    return messages + (_calls(pending) if pending else [])


@dataclass
class ContextReply:
    """What the candidate did in one context: its turns (tool turns, then its reply), how many
    of its calls the recording could not answer, whether it never replied (still calling
    tools after the last round: its own doing, judged as it is), and the call failure that
    ended it, if one did (the next run retries that)."""

    turns: list[Turn] = field(default_factory=list)
    tool_calls: int = 0
    not_recorded: int = 0
    offered_no_tools: bool = False
    unanswered: bool = False
    error: str | None = None


class Candidate:
    """A candidate chatbot, replying in recorded contexts."""

    def __init__(self, model: Model, params: GenerationParams, max_tool_rounds: int) -> None:
        self.model = model
        self.params = params
        self.max_tool_rounds = max_tool_rounds

    async def reply(
        self,
        dialogue: Dialogue,
        prefix: Sequence[Turn],
        recorded: Sequence[Turn],
        system: str | None,
        replay_id: str,
    ) -> ContextReply:
        """The candidate's part in one context; a call failure ends it with `error` set."""
        takes_tools = self.model.api.takes_tools
        tools = tool_definitions(dialogue.turns) if takes_tools else ()
        done = ContextReply(
            offered_no_tools=not takes_tools and any(t.tool for t in dialogue.turns)
        )
        own_bot = self.model.own_bot
        history = [] if own_bot or system is None else [Message(role="system", content=system)]
        history += prefix_messages(prefix, with_tools=takes_tools)
        # A stateful bot starts each context afresh: its session has heard none of the prefix.
        conversation = Conversation(
            id=replay_id, language=dialogue.language, session=uuid.uuid4().hex
        )
        for round_ in range(self.max_tool_rounds + 1):
            try:
                completion = await self.model.chat(
                    history, self.params, conversation=conversation, tools=tools
                )
            except CallFailed as failure:
                done.error = str(failure)
                return done
            if not completion.tool_calls:
                done.turns.append(
                    Turn(
                        role="assistant",
                        text=completion.text.strip(),
                        model=self.model.spec,
                        metadata=reply_metadata(completion),
                    )
                )
                return done
            if round_ == self.max_tool_rounds:
                break
            history.append(
                Message(
                    role="assistant",
                    content=completion.text,
                    tool_calls=tuple(completion.tool_calls),
                )
            )
            for call in completion.tool_calls:
                answer = recorded_answer(call, recorded)
                done.tool_calls += 1
                done.not_recorded += answer is None
                result = NOT_RECORDED if answer is None else answer
                history.append(Message(role="tool", content=result, tool_call_id=call.id))
                done.turns.append(
                    Turn(
                        role="tool",
                        text=result,
                        model=self.model.spec,
                        tool=ToolUse(
                            name=call.name,
                            arguments=parsed_arguments(call.arguments),
                            call_id=call.id,
                        ),
                        metadata={"recorded_result": answer is not None},
                    )
                )
        # No text: an empty reply, judged as the candidate left it.
        done.turns.append(
            Turn(role="assistant", text="", model=self.model.spec, metadata={"unanswered": True})
        )
        done.unanswered = True
        return done
