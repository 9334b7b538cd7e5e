"""Per-token log-probabilities as parsed from OpenAI-format responses, and the expected value of a
numeric JSON field from them: where the value is, which token wrote it, and when it cannot be
weighed."""

from __future__ import annotations

import math

import pytest

from dialbench.llm.base import Completion, GeneratedToken, TokenLogprob
from dialbench.llm.expected import ScoredField, expectation, token_at, value_offset
from dialbench.llm.openai_format import completion_from_response

SCORE = ScoredField(name="score", values=[1, 2, 3, 4, 5])
QUALITY = ScoredField(name="quality", values=[0, 1, 2])


def generated(text: str, options: dict[str, float] | None = None) -> GeneratedToken:
    """A token whose alternatives (with probabilities) are `options`, itself the first."""
    options = options or {text: 1.0}
    return GeneratedToken(
        token=text,
        logprob=math.log(options.get(text, 1e-6)),
        top=[TokenLogprob(token=t, logprob=math.log(p)) for t, p in options.items()],
    )


def tokens_of(*parts: str | GeneratedToken) -> list[GeneratedToken]:
    return [generated(p) if isinstance(p, str) else p for p in parts]


def test_chat_response_keeps_every_token_and_its_alternatives() -> None:
    def entry(token: str, options: dict[str, float]) -> dict[str, object]:
        top = [{"token": t, "logprob": math.log(p), "bytes": None} for t, p in options.items()]
        return {"token": token, "logprob": top[0]["logprob"], "bytes": None, "top_logprobs": top}

    response = {
        "model": "m",
        "choices": [
            {
                "message": {"role": "assistant", "content": '{"score": 4}'},
                "finish_reason": "stop",
                "logprobs": {
                    "content": [
                        entry('{"', {'{"': 1.0}),
                        entry("score", {"score": 1.0}),
                        entry('":', {'":': 1.0}),
                        entry(" ", {" ": 0.9, "  ": 0.1}),
                        entry("4", {"4": 0.6, "3": 0.3, "5": 0.1}),
                        entry("}", {"}": 1.0}),
                    ]
                },
            }
        ],
    }
    completion = completion_from_response(response, 0.1, chat=True)
    assert [t.token for t in completion.tokens] == ['{"', "score", '":', " ", "4", "}"]
    assert [t.token for t in completion.tokens[4].top] == ["4", "3", "5"]
    assert completion.top_logprobs == completion.tokens[0].top  # the first token's, as before
    assert expectation(completion.text, completion.tokens, SCORE).expected == pytest.approx(3.8)


def test_completion_response_pairs_tokens_with_their_alternatives() -> None:
    response = {
        "choices": [
            {
                "text": " 2",
                "logprobs": {
                    "tokens": [" ", "2"],
                    "token_logprobs": [math.log(0.9), math.log(0.7)],
                    "top_logprobs": [{" ": math.log(0.9)}, {"2": math.log(0.7), "1": -2.0}],
                    "text_offset": [0, 1],
                },
            }
        ]
    }
    completion = completion_from_response(response, 0.1, chat=False)
    assert [t.token for t in completion.tokens] == [" ", "2"]
    assert {t.token: t.logprob for t in completion.tokens[1].top} == {"2": math.log(0.7), "1": -2.0}


def test_a_completion_cached_before_tokens_existed_still_loads() -> None:
    old = '{"text": "Yes", "top_logprobs": [{"token": "Yes", "logprob": -0.1}], "raw": null}'
    completion = Completion.model_validate_json(old)
    assert completion.tokens == []
    assert expectation(completion.text, completion.tokens, SCORE).status == "unscored"


def test_expectation_renormalises_the_allowed_values_among_the_top_tokens() -> None:
    score = generated("4", {"4": 0.5, " 3": 0.2, "3": 0.1, "5": 0.1, "the": 0.1})
    found = expectation('{"score": 4}', tokens_of('{"', "score", '":', " ", score, "}"), SCORE)
    assert found.status == "ok"
    assert found.expected == pytest.approx((4 * 0.5 + 3 * 0.3 + 5 * 0.1) / 0.9, abs=1e-4)
    assert found.argmax == 4
    assert found.mass == pytest.approx(0.9)
    assert found.probabilities["1"] == 0.0
    assert sum(found.probabilities.values()) == pytest.approx(1.0, abs=1e-3)


def test_the_score_after_a_reason_is_found_where_it_was_written() -> None:
    """Holistic writes its reason first; the reason mentions "quality" and digits, and holds a
    Chinese character the server sent as two tokens, neither of which decodes on its own."""
    text = '{"reason": "\\"quality\\": 2 would be 好 too high", "quality": 1}'
    quality = generated("1", {"1": 0.6, "0": 0.3, "2": 0.1})
    tokens = tokens_of(
        '{"',
        "reason",
        '":',
        ' "\\"',
        "quality",
        '\\":',
        " ",
        generated("2", {"2": 0.99, "1": 0.01}),  # inside the reason: not the score
        " would be ",
        "",  # the first bytes of 好, decoded alone to nothing
        "\ufffd",  # its last byte, decoded alone to a replacement character
        " too high",
        '",',
        ' "',
        "quality",
        '":',
        " ",
        quality,
        "}",
    )
    offset = value_offset(text, "quality")
    assert offset is not None
    assert text[offset] == "1"
    assert token_at(text, tokens, offset) is quality
    found = expectation(text, tokens, QUALITY)
    assert found.expected == pytest.approx(0.6 + 2 * 0.1, abs=1e-4)
    assert found.argmax == 1


@pytest.mark.parametrize(
    ("text", "offset"),
    [
        ('{"score": 3}', 10),
        ('```json\n{"score":3}\n```', 17),
        ('{"a": {"score": 1}, "b": [1, "x"], "score": 5}', 44),
        ('{"a": 1}', None),
        ("no JSON here", None),
        ('{"a": 1 "score": 2}', None),
    ],
)
def test_value_offset_reads_only_the_top_level_object(text: str, offset: int | None) -> None:
    assert value_offset(text, "score") == offset


def test_unscored_with_the_reason_never_the_written_value() -> None:
    text = '{"score": 4}'
    no_logprobs = expectation(text, [], SCORE)
    assert (no_logprobs.status, no_logprobs.expected) == ("unscored", None)
    assert no_logprobs.error == "the backend returned no log-probabilities"
    nothing_allowed = generated("4", {"four": 0.7, "IV": 0.3})
    tokens = tokens_of('{"score": ', nothing_allowed, "}")
    # the chosen token itself counts: here its text is "4", so it alone is weighed
    assert expectation(text, tokens, SCORE).expected == 4.0
    nothing_allowed = generated("IV", {"four": 0.7, "IV": 0.3})
    found = expectation('{"score": IV}', tokens_of('{"score": ', nothing_allowed, "}"), SCORE)
    assert found.status == "unscored"
    assert found.error is not None
    assert "no allowed 'score' value among the 2 top tokens" in found.error
    missing = expectation('{"other": 4}', tokens_of('{"other": ', "4", "}"), SCORE)
    assert missing.error == "no 'score' field in the answer"
    uncovered = expectation(text, tokens_of('{"score": '), SCORE)
    assert uncovered.error == "no generated token covers the 'score' value"
