"""The user agent: writes the human side, in chat form or as a transcript completion.

Capable API models stay in role with a system prompt (MEDAL Table 6). Small local models slip
into the assistant voice there, so `transcript` form has them continue `USER:` lines instead, with
stops on the next speaker tag (see DESIGN.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from dialbench.llm.base import GenerationParams
from dialbench.llm.model import Model
from dialbench.prompts import load_prompt
from dialbench.schema import Record, SeedContext, Turn
from dialbench.simulate.transcript import (
    TRANSCRIPT_STOPS,
    clean_user_text,
    context_values,
    render_transcript,
)

Form = Literal["chat", "transcript"]
PROMPTS = (
    "simulate_first_turn",
    "simulate_user",
    "simulate_user_turn",
    "simulate_retry",
    "simulate_transcript",
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
        self, context: SeedContext, turns: Sequence[Turn], retry: Retry | None = None
    ) -> str:
        """The next user message (the first when `turns` is empty), label and quotes removed."""
        values = context_values(context)
        system = load_prompt("simulate_user" if turns else "simulate_first_turn").format(**values)
        retry_text = load_prompt("simulate_retry").format(**retry.model_dump()) if retry else ""
        params = self.turn_params if turns else self.first_turn_params
        if self.form == "chat":
            request = load_prompt("simulate_user_turn").format(transcript=render_transcript(turns))
            user_message = f"{retry_text}\n{request}" if retry else request
            messages = [
                {"role": "system", "content": system},
                {"role": "user", "content": user_message},
            ]
            completion = await self.model.chat(messages, params)
        else:
            transcript = render_transcript(turns) + "\n" if turns else ""
            prompt = load_prompt("simulate_transcript").format(
                instructions=system,
                retry=f"{retry_text}\n" if retry else "",
                transcript=transcript,
            )
            stops = params.stop + TRANSCRIPT_STOPS
            completion = await self.model.complete(
                prompt, params.model_copy(update={"stop": stops})
            )
        return clean_user_text(completion.text)
