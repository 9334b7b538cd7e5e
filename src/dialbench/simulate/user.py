"""The user agent: writes the human side, in chat form or as a transcript completion.

Capable API models stay in role with a system prompt (MEDAL Tables 5-6). Small local models slip
into the assistant voice or narrate there, so `transcript` form has them continue a few-shot
`USER:` transcript instead, stopping at the end of the line.
"""

from __future__ import annotations

from collections.abc import Sequence

from dialbench.llm.base import GenerationParams
from dialbench.llm.role_model import Model
from dialbench.prompts import load_prompt
from dialbench.schema import Record, SeedContext, Turn, speaker_turns
from dialbench.simulate.config import Form
from dialbench.simulate.transcript import (
    TRANSCRIPT_STOPS,
    clean_user_text,
    context_values,
    render_transcript,
)

PROMPTS = (
    "simulate_first_turn",
    "simulate_user",
    "simulate_user_turn",
    "simulate_retry",
    "simulate_user_transcript_first",
    "simulate_user_transcript",
    "simulate_retry_transcript",
)


class Retry(Record):
    """A rejected attempt and the validator's feedback, shown to the next attempt."""

    rejected: str
    feedback: str


class UserAgent:
    def __init__(
        self, model: Model, form: Form, first_turn: GenerationParams, turns: GenerationParams
    ) -> None:
        self.model = model
        self.form = form
        self.first_turn_params = first_turn
        self.turn_params = turns

    async def write(
        self,
        context: SeedContext,
        turns: Sequence[Turn],
        retry: Retry | None = None,
        attempt: int = 0,
    ) -> str:
        """The next user message (the first when `turns` holds no utterance), label and quotes
        removed. Like a person, the simulated user reads a chatbot's replies, never its tool calls.

        Each attempt samples with its own seed, so a retry is a fresh draw, not a replay.
        """
        turns = speaker_turns(turns)
        params = self.turn_params if turns else self.first_turn_params
        params = params.model_copy(update={"seed": (params.seed or 0) + attempt})
        if self.form == "chat":
            text = await self._chat(context, turns, retry, params)
        else:
            text = await self._transcript(context, turns, retry, params)
        return clean_user_text(text)

    async def _chat(
        self,
        context: SeedContext,
        turns: Sequence[Turn],
        retry: Retry | None,
        params: GenerationParams,
    ) -> str:
        system = load_prompt("simulate_user" if turns else "simulate_first_turn")
        request = load_prompt("simulate_user_turn").format(transcript=render_transcript(turns))
        if retry is not None:
            request = load_prompt("simulate_retry").format(**retry.model_dump()) + "\n" + request
        messages = [
            {"role": "system", "content": system.format(**context_values(context))},
            {"role": "user", "content": request},
        ]
        return (await self.model.chat(messages, params)).text

    async def _transcript(
        self,
        context: SeedContext,
        turns: Sequence[Turn],
        retry: Retry | None,
        params: GenerationParams,
    ) -> str:
        template = load_prompt(
            "simulate_user_transcript" if turns else "simulate_user_transcript_first"
        )
        retry_text = (
            load_prompt("simulate_retry_transcript").format(**retry.model_dump())
            if retry is not None
            else ""
        )
        prompt = template.format(
            **context_values(context), retry=retry_text, transcript=render_transcript(turns)
        )
        stops = (*params.stop, *TRANSCRIPT_STOPS)
        return (await self.model.complete(prompt, params.model_copy(update={"stop": stops}))).text
