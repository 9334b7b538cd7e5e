"""Reading OpenAI-format responses (chat and text completions), which llama.cpp also returns."""

from __future__ import annotations

from typing import Any

from dialbench.llm.base import Completion, ModelError, TokenLogprob
from dialbench.schema import Usage


def completion_from_response(response: Any, latency_s: float, *, chat: bool) -> Completion:
    """A `Completion` from a decoded chat.completion or text_completion response."""
    try:
        choice = response["choices"][0]
        logprobs = choice.get("logprobs") or {}
        if chat:
            text = choice["message"].get("content") or ""
            first = (logprobs.get("content") or [{}])[0].get("top_logprobs") or []
            top = [TokenLogprob(token=t["token"], logprob=t["logprob"]) for t in first]
        else:
            text = choice["text"]
            first_options = (logprobs.get("top_logprobs") or [{}])[0] or {}
            top = [TokenLogprob(token=t, logprob=lp) for t, lp in first_options.items()]
        usage = response.get("usage") or {}
        return Completion(
            text=text,
            finish_reason=choice.get("finish_reason"),
            usage=Usage(
                prompt_tokens=usage.get("prompt_tokens") or 0,
                completion_tokens=usage.get("completion_tokens") or 0,
            ),
            latency_s=latency_s,
            model=response.get("model") or "",
            top_logprobs=top,
            raw=response,
        )
    except (KeyError, IndexError, TypeError, AttributeError) as error:
        raise ModelError(
            f"response is not a {'chat ' if chat else ''}completion ({error!r})", retryable=True
        ) from error
