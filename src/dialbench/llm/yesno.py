"""P(yes) for a yes/no question, from the log-probabilities of the first answer token.

Small judges answer yes/no far more reliably than they give free-form scores, and the probability
ranks items where a bare label cannot. When neither answer is among the top tokens, or the backend
gives no log-probabilities, the result is `unscored`: reading "yes" out of free text is the
mistake this avoids.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pydantic import Field

from dialbench.llm.base import Completion, GenerationParams, Message, Request, TokenLogprob
from dialbench.schema import ParseStatus, Record, Usage

TOP_LOGPROBS = 20
# First tokens that start a yes or a no, in the languages dialbench prompts are written in.
YES_WORDS = frozenset({"yes", "是", "是的", "对", "ja", "oui", "sí", "si", "sim", "はい"})
NO_WORDS = frozenset({"no", "不", "不是", "否", "nein", "non", "não", "nao", "いいえ"})
YES_NO_PARAMS = GenerationParams(max_tokens=1, temperature=0.0)


class YesNo(Record):
    p_yes: float | None = Field(default=None, ge=0.0, le=1.0)
    status: ParseStatus
    error: str | None = None
    top_tokens: list[TokenLogprob] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)


def yes_no_request(messages: Sequence[Message]) -> Request:
    return Request(
        kind="chat", messages=tuple(messages), params=YES_NO_PARAMS, top_logprobs=TOP_LOGPROBS
    )


def _answer(token: str) -> str:
    return token.strip().strip(".,!:;\"'").lower()


def yes_no_from(completion: Completion) -> YesNo:
    """Renormalise the probability mass of yes against no among the first-token options."""
    top = completion.top_logprobs
    if not top:
        return YesNo(
            status="unscored",
            error="the backend returned no log-probabilities",
            usage=completion.usage,
        )
    yes = no = 0.0
    for option in top:
        answer = _answer(option.token)
        if answer in YES_WORDS:
            yes += math.exp(option.logprob)
        elif answer in NO_WORDS:
            no += math.exp(option.logprob)
    total = yes + no
    if total == 0.0:
        return YesNo(
            status="unscored",
            error=f"neither yes nor no among the top {len(top)} first tokens",
            top_tokens=top,
            usage=completion.usage,
        )
    return YesNo(p_yes=yes / total, status="ok", top_tokens=top, usage=completion.usage)
