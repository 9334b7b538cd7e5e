"""Scripted models for the simulation loop: each answer is a function of the request."""

from __future__ import annotations

from collections.abc import Callable

from dialbench.llm.base import GenerationParams, ModelError, Request
from dialbench.llm.runner import Runner
from dialbench.schema import SeedContext
from dialbench.simulate.chatbot import Chatbot
from dialbench.simulate.config import Form
from dialbench.simulate.dialogue import DialogueLoop
from dialbench.simulate.user import UserAgent
from dialbench.simulate.validator import Validator
from tests.scripted_models import ScriptedModel

CONTEXT = SeedContext(
    language="en",
    culture="Canada",
    scene="Someone burned dinner while friends are on their way.",
    persona="A nurse who works night shifts.",
    affective_state="frustrated",
    gender="female",
)
FAIL = "<<fail>>"


def request_text(request: Request) -> str:
    return request.prompt + "\n".join(m.content for m in request.messages)


def scripted(name: str, answer: Callable[[Request], str]) -> ScriptedModel:
    """A model answering `answer(request)`; the answer FAIL is a refused call instead."""

    def or_fail(request: Request) -> str:
        text = answer(request)
        if text == FAIL:
            raise ModelError("HTTP 400: refused", retryable=False)
        return text

    return ScriptedModel(name, or_fail, structured_output="prompt")


def agents(
    runner: Runner,
    user: ScriptedModel,
    validator: ScriptedModel | None,
    chatbot: ScriptedModel,
    *,
    form: Form = "chat",
    turn_attempts: int = 3,
    max_utterances: int = 6,
) -> tuple[UserAgent, Validator | None, DialogueLoop]:
    params = GenerationParams()
    user_agent = UserAgent(user.model(runner, "user"), form, params, params)
    judge = Validator(validator.model(runner, "validator"), form, params) if validator else None
    bot = Chatbot(chatbot.model(runner, "assistant"), params)
    loop = DialogueLoop(
        user_agent, judge, bot, turn_attempts=turn_attempts, max_utterances=max_utterances
    )
    return user_agent, judge, loop
