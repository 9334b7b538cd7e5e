"""The per-dialogue loop with scripted models: validator paths, end marker, failures, forms."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Coroutine
from typing import Any, TypeVar

import pytest
from simulate_scripted import CONTEXT, FAIL, agents, request_text, scripted

from dialbench.llm.base import Completion, GenerationParams, Request, TokenLogprob
from dialbench.llm.runner import Runner
from dialbench.simulate.dialogue import Outcome, UserTurn, write_user_turn
from dialbench.simulate.transcript import END_MARKER, clean_user_text
from dialbench.simulate.validator import Validator
from tests.scripted_models import ScriptedModel

T = TypeVar("T")


def run(job: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(job)


def user_by_seed(*answers: str) -> ScriptedModel:
    """The n-th attempt (seed n) at any turn answers answers[n] (the last one repeats)."""
    return scripted("user", lambda r: answers[min(r.params.seed or 0, len(answers) - 1)])


def judge_rejecting(*bad: str, feedback: str = "Too formal.") -> ScriptedModel:
    def answer(request: Request) -> str:
        candidate = request_text(request).rsplit("USER:", 1)[-1]
        return f"No. {feedback}" if any(b in candidate for b in bad) else "Yes."

    return scripted("judge", answer)


def chatbot(reply: str = "Oh no! What were you cooking?") -> ScriptedModel:
    return scripted("bot", lambda r: reply)


def first_turn(user: ScriptedModel, judge: ScriptedModel | None, attempts: int = 3) -> UserTurn:
    runner = Runner(None, quiet=True)
    agent, validator, _ = agents(runner, user, judge, chatbot())
    return run(write_user_turn(agent, validator, CONTEXT, [], attempts))


def dialogue(
    user: ScriptedModel, judge: ScriptedModel | None, bot: ScriptedModel, **options: Any
) -> Outcome:
    runner = Runner(None, quiet=True)
    agent, validator, loop = agents(runner, user, judge, bot, **options)

    async def both() -> Outcome:
        first = await write_user_turn(agent, validator, CONTEXT, [], 3)
        return await loop.run(CONTEXT, first)

    return run(both())


def test_an_accepted_turn_keeps_the_verdict_and_the_validator() -> None:
    turn = first_turn(
        user_by_seed("My lasagna is charcoal, what can I cook in 20 minutes?"), judge_rejecting()
    )
    assert turn.text == "My lasagna is charcoal, what can I cook in 20 minutes?"
    assert [(a.verdict, a.feedback) for a in turn.attempts] == [("accepted", None)]
    assert turn.attempts[0].validator_model is not None


@pytest.mark.parametrize("form", ["chat", "transcript"])
def test_a_rejected_attempt_and_its_feedback_reach_the_next_prompt(form: str) -> None:
    user = user_by_seed("Dear assistant, kindly advise.", "ugh, dinner burned. quick ideas?")
    runner = Runner(None, quiet=True)
    agent, validator, _ = agents(runner, user, judge_rejecting("kindly"), chatbot(), form=form)  # type: ignore[arg-type]
    turn = run(write_user_turn(agent, validator, CONTEXT, [], 3))
    assert turn.text == "ugh, dinner burned. quick ideas?"
    assert [(a.verdict, a.feedback) for a in turn.attempts] == [
        ("rejected", "Too formal."),
        ("accepted", None),
    ]
    first, second = map(request_text, user.requests)
    assert "Too formal." not in first
    assert "Too formal." in second
    assert "Dear assistant, kindly advise." in second
    assert user.requests[1].kind == ("chat" if form == "chat" else "complete")


def test_a_turn_that_never_passes_ends_the_dialogue_with_every_attempt_stored() -> None:
    user = user_by_seed("Hi there, first try.", "Hi, second try.", "Hello, third try.")
    outcome = dialogue(user, judge_rejecting("try"), chatbot())
    assert outcome.end_reason == "validation_failed"
    [failed] = outcome.turns
    assert failed.text == ""
    assert failed.metadata == {"validation_failed": True}
    assert [a.verdict for a in failed.attempts] == ["rejected"] * 3
    assert [a.text for a in failed.attempts] == [
        "Hi there, first try.",
        "Hi, second try.",
        "Hello, third try.",
    ]


def test_a_later_turn_that_fails_keeps_the_dialogue_so_far() -> None:
    def answer(request: Request) -> str:
        return (
            "Any quick dinner ideas?"
            if "(no messages yet)" in request_text(request)
            else "Same again, same again."
        )

    outcome = dialogue(
        scripted("user", answer), judge_rejecting("Same again"), chatbot(), turn_attempts=2
    )
    assert outcome.end_reason == "validation_failed"
    assert [t.role for t in outcome.turns] == ["user", "assistant", "user"]
    assert outcome.turns[-1].text == ""
    assert len(outcome.turns[-1].attempts) == 2


def test_the_end_marker_ends_the_dialogue_and_is_never_stored() -> None:
    def answer(request: Request) -> str:
        seen = request_text(request)
        if "(no messages yet)" in seen:
            return "My soup is burnt, any rescue trick?"
        return f"Thanks, that helps a lot! [{END_MARKER.lower()}]"

    outcome = dialogue(scripted("user", answer), judge_rejecting(), chatbot())
    assert outcome.end_reason == "natural_end"
    assert [t.text for t in outcome.turns][-1] == "Thanks, that helps a lot!"
    assert outcome.turns[-1].metadata == {"ends_dialogue": True}
    assert all("dialogue" not in t.text.lower() for t in outcome.turns)


def test_a_marker_alone_adds_no_turn_but_keeps_its_attempts() -> None:
    def answer(request: Request) -> str:
        return (
            "Burnt toast again, tips?"
            if "(no messages yet)" in request_text(request)
            else END_MARKER
        )

    outcome = dialogue(scripted("user", answer), judge_rejecting(), chatbot())
    assert outcome.end_reason == "natural_end"
    assert [t.role for t in outcome.turns] == ["user", "assistant"]
    assert [a.text for a in outcome.end_attempts] == [END_MARKER]


def test_a_marker_as_the_first_message_is_rejected_as_empty() -> None:
    turn = first_turn(user_by_seed(END_MARKER, "What goes with burnt rice?"), judge_rejecting())
    assert turn.text == "What goes with burnt rice?"
    assert turn.attempts[0].feedback == "the message was empty"


def test_the_turn_cap_counts_both_roles() -> None:
    user = user_by_seed("Any ideas for a quick dinner?")
    outcome = dialogue(user, None, chatbot(), max_utterances=4)
    assert outcome.end_reason == "turn_cap"
    assert [t.role for t in outcome.turns] == ["user", "assistant", "user", "assistant"]
    assert all(a.verdict is None for t in outcome.turns for a in t.attempts)


def test_the_chatbot_sees_only_its_system_prompt_and_the_dialogue() -> None:
    bot = chatbot()
    dialogue(user_by_seed("Any ideas for a quick dinner?"), None, bot, max_utterances=2)
    [request] = bot.requests
    assert [m.role for m in request.messages] == ["system", "user"]
    assert CONTEXT.scene is not None
    assert CONTEXT.scene not in request_text(request)


def test_an_answer_without_yes_or_no_is_a_rejection_that_quotes_it() -> None:
    judge = scripted("judge", lambda r: "Maybe, it depends.")
    turn = first_turn(user_by_seed("What can I cook fast?"), judge, attempts=1)
    assert turn.text is None
    assert turn.attempts[0].feedback is not None
    assert "Maybe, it depends." in turn.attempts[0].feedback


def test_a_chatbot_call_that_fails_for_good_ends_the_dialogue_as_error() -> None:
    outcome = dialogue(
        user_by_seed("Quick dinner ideas?"), judge_rejecting(), scripted("bot", lambda r: FAIL)
    )
    assert outcome.end_reason == "error"
    assert outcome.error is not None
    assert "refused" in outcome.error
    assert [t.role for t in outcome.turns] == ["user"]


def test_the_transcript_form_completes_a_user_line_and_stops_at_the_next() -> None:
    user = user_by_seed('USER: "Any quick dinner ideas?"\nCHATBOT: sure')
    runner = Runner(None, quiet=True)
    agent, validator, _ = agents(runner, user, judge_rejecting(), chatbot(), form="transcript")
    turn = run(write_user_turn(agent, validator, CONTEXT, [], 1))
    assert turn.text == "Any quick dinner ideas?"
    [request] = user.requests
    assert request.kind == "complete"
    assert request.prompt.rstrip().endswith("USER:")
    assert "\n" in request.params.stop


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ('User: "Any quick dinner ideas?"', "Any quick dinner ideas?"),
        ("**最近总是失眠，有什么办法？**", "最近总是失眠，有什么办法？"),
        ("用户：「晚饭烧糊了」", "晚饭烧糊了"),
        ("Any ideas? CHATBOT: Sure!", "Any ideas?"),
        ("### 我的植物一直萎蔫。", "我的植物一直萎蔫。"),
    ],
)
def test_generated_user_text_is_cleaned(raw: str, clean: str) -> None:
    assert clean_user_text(raw) == clean


def yes_probability_judge(p_yes: float | None) -> ScriptedModel:
    """A validator whose first answer token is Yes with probability `p_yes` (None: no
    log-probabilities at all, as some backends give)."""

    def answer(request: Request) -> Completion:
        assert request.top_logprobs, "a threshold asks for log-probabilities"
        if p_yes is None:
            return Completion(text="Yes")
        top = [TokenLogprob(token="Yes", logprob=math.log(p_yes))]
        top.append(TokenLogprob(token="No", logprob=math.log(1 - p_yes)))
        return Completion(text="Yes", top_logprobs=top)

    return ScriptedModel("p-yes", answer)


@pytest.mark.parametrize(
    ("p_yes", "threshold", "verdict", "feedback"),
    [
        (0.6, 0.5, "accepted", None),
        (0.4, 0.5, "rejected", "P(yes) is 0.40, below 0.50"),
        (None, 0.5, "rejected", "no yes/no probability"),
    ],
)
def test_a_threshold_on_p_yes_decides_the_verdict(
    p_yes: float | None, threshold: float, verdict: str, feedback: str | None
) -> None:
    runner = Runner(None, quiet=True)
    validator = Validator(
        yes_probability_judge(p_yes).model(runner, "validator"),
        "transcript",
        GenerationParams(),
        threshold,
    )
    attempt = run(validator.judge(CONTEXT, [], "My dinner burned, any quick ideas?"))
    assert attempt.verdict == verdict
    if feedback is None:
        assert attempt.feedback is None
    else:
        assert attempt.feedback is not None
        assert feedback in attempt.feedback
