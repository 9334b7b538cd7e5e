"""A scripted judge: its answer depends on a marker in the judged dialogue and on how many times
the same conversation was asked (the first answer, then each re-ask)."""

from __future__ import annotations

import json

from dialbench.llm.base import Completion, ModelError, Request
from dialbench.schema import Dialogue, Turn, Usage
from tests.scripted_models import ScriptedModel

ISSUE_KEYS = (
    "uninterpretable",
    "unsafe",
    "lacks_empathy",
    "lacks_commonsense",
    "repetitive",
    "incoherent",
    "irrelevant",
    "non_factual",
)


def issues_answer(overall: object = 4, **flags: object) -> str:
    issues = {key: flags.get(key, False) for key in ISSUE_KEYS}
    comments = {key: f"turn 1 is {key}" for key, flag in flags.items() if flag is True}
    return json.dumps({"issues": issues, "comments": comments, "overall": overall})


VALID = issues_answer(repetitive=True)
ISSUES_SCRIPT: dict[str, list[str]] = {
    "well-formed": [VALID],
    "fenced": [f"```json\n{VALID}\n```"],
    "truncated-then-fixed": [VALID[:40], VALID],
    "extra-prose": [f"Sure! Here is my evaluation: {VALID} Hope this helps."],
    "wrong-types": [issues_answer(overall="five", unsafe="no")],
    "out-of-range": [issues_answer(overall=7)],
}


def marker(request: Request) -> str:
    """The first marker named in the first user message (the judged dialogue or response)."""
    first = next(m.content for m in request.messages if m.role == "user")
    return next((key for key in MARKERS if key in first), "well-formed")


MARKERS = (*ISSUES_SCRIPT, "call-fails")


def scripted_judge(name: str, script: dict[str, list[str]]) -> ScriptedModel:
    """A judge `scripted:NAME` giving each marker's answers in turn; "call-fails" is refused."""

    def answer(request: Request) -> Completion:
        key = marker(request)
        if key == "call-fails":
            raise ModelError("HTTP 400: the model refused the request", retryable=False)
        answers = script[key]
        attempt = (len(request.messages) - 2) // 2  # each re-ask adds an answer and a request
        return Completion(
            text=answers[min(attempt, len(answers) - 1)],
            finish_reason="stop",
            usage=Usage(prompt_tokens=50, completion_tokens=20),
        )

    return ScriptedModel(name, answer, structured_output="json_object")


def dialogue(text: str, language: str = "en", turns: int = 2) -> Dialogue:
    roles = ("user", "assistant")
    return Dialogue(
        language=language,
        turns=[Turn(role=roles[i % 2], text=f"{text} ({i})") for i in range(turns)],
    )
