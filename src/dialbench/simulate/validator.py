"""The online validator (LLM-as-judge) on every user turn, MEDAL Table 8.

It answers "Yes." or "No. <reason>": in chat form (capable models), or as the next line of a
few-shot verdict list (small local models, which judge poorly from instructions alone). An answer
that starts with neither is a rejection whose feedback quotes it, so the record shows why.
With a threshold, the verdict is P(yes) from the first answer token instead: small models that
cannot be trusted to answer in form still rank good messages above bad ones.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from dialbench.llm.base import GenerationParams
from dialbench.llm.role_model import Model
from dialbench.llm.yesno import YesNo
from dialbench.prompts import load_prompt
from dialbench.schema import GenerationAttempt, SeedContext, Turn
from dialbench.simulate.config import Form
from dialbench.simulate.transcript import context_values, render_transcript

PROMPTS = ("simulate_validator", "simulate_validator_turn", "simulate_validator_transcript")
_YES = re.compile(r"^[\W_]*(?:yes|是|对|ja|oui|sí|si|sim)\b[\W_]*", re.I)
_NO = re.compile(r"^[\W_]*(?:no|不是|不|否|nein|non|não|nao)\b[\W_]*", re.I)


def parse_verdict(answer: str) -> tuple[bool, str | None]:
    """(accepted, feedback) from a "Yes." / "No. reason" answer."""
    if _YES.match(answer):
        return True, None
    if found := _NO.match(answer):
        return False, answer[found.end() :].strip() or "rejected without a reason"
    return False, f"the validator answered neither Yes nor No: {answer.strip()[:200]!r}"


def by_probability(answer: YesNo, threshold: float) -> tuple[bool, str | None]:
    """(accepted, feedback) from P(yes); no probability is a rejection that says why."""
    if answer.p_yes is None:
        return False, f"the validator gave no yes/no probability: {answer.error}"
    if answer.p_yes >= threshold:
        return True, None
    return False, f"the validator's P(yes) is {answer.p_yes:.2f}, below {threshold:.2f}"


class Validator:
    def __init__(
        self, model: Model, form: Form, params: GenerationParams, threshold: float | None = None
    ) -> None:
        self.model = model
        self.form = form
        self.params = params
        self.threshold = threshold

    async def judge(
        self, context: SeedContext, turns: Sequence[Turn], message: str
    ) -> GenerationAttempt:
        """The candidate `message` (end marker included) as an attempt with verdict and feedback."""
        values = context_values(context)
        turn = load_prompt("simulate_validator_turn").format(
            **values, transcript=render_transcript(turns, last_user=message)
        )
        messages = [
            {"role": "system", "content": load_prompt("simulate_validator").format(**values)},
            {"role": "user", "content": turn},
        ]
        if self.threshold is not None:
            accepted, feedback = by_probability(
                await self.model.yes_probability(messages), self.threshold
            )
        elif self.form == "chat":
            answer = (await self.model.chat(messages, self.params)).text
            accepted, feedback = parse_verdict(answer)
        else:
            prompt = load_prompt("simulate_validator_transcript").format(
                **values, transcript=render_transcript(turns), message=" ".join(message.split())
            )
            params = self.params.model_copy(update={"stop": (*self.params.stop, "\n")})
            answer = (await self.model.complete(prompt, params)).text
            accepted, feedback = parse_verdict(answer)
        return GenerationAttempt(
            text=message,
            verdict="accepted" if accepted else "rejected",
            feedback=feedback,
            validator_model=self.model.spec,
        )
