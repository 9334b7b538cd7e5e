"""The chatbot under test: one shared system prompt (MEDAL Table 7) and the dialogue history.

It never sees the seed context, as with a real chatbot, and its turns are not validated. A
chatbot of the user's own (`python:`, `http:`) has instructions of its own, so it gets the
history alone, with the dialogue's id and language (and its session, when stateful).

The history is the two sides' utterances: tool turns are left out. Sent in the OpenAI shape they
would need the tool calls' ids (a log may keep none) and tool definitions the chatbot under test
was never given, and they are another system's calls, not this chatbot's.
"""

from __future__ import annotations

from collections.abc import Sequence

from dialbench.llm.base import Conversation, GenerationParams
from dialbench.llm.reply_text import reply_metadata
from dialbench.llm.role_model import Model
from dialbench.prompts import load_prompt
from dialbench.schema import Turn, speaker_turns

PROMPTS = ("simulate_chatbot",)


class Chatbot:
    def __init__(self, model: Model, params: GenerationParams) -> None:
        self.model = model
        self.params = params

    async def reply(self, turns: Sequence[Turn], conversation: Conversation | None = None) -> Turn:
        """The chatbot's turn; its metadata says how the reply was made fit to store, if it
        was (cut to the model's `max_reply_bytes`, unencodable characters replaced)."""
        messages = (
            []
            if self.model.own_bot
            else [{"role": "system", "content": load_prompt("simulate_chatbot").text}]
        )
        messages += [{"role": t.role, "content": t.text} for t in speaker_turns(turns)]
        completion = await self.model.chat(messages, self.params, conversation=conversation)
        return Turn(
            role="assistant",
            text=completion.text.strip(),
            model=self.model.spec,
            metadata=reply_metadata(completion),
        )
