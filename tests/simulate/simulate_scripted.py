"""Scripted models for the simulation loop: each answer is a function of the request."""

from __future__ import annotations

from collections.abc import Callable

from dialbench.llm.base import Completion, GenerationParams, ModelError, Request, StructuredMode
from dialbench.llm.model import Model
from dialbench.llm.runner import Runner
from dialbench.llm.specs import ModelConfig
from dialbench.schema import SeedContext, Usage
from dialbench.simulate.chatbot import Chatbot
from dialbench.simulate.config import Form
from dialbench.simulate.dialogue import DialogueLoop
from dialbench.simulate.user import UserAgent
from dialbench.simulate.validator import Validator

Answer = Callable[[Request], str]
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


class ScriptedAPI:
    structured_mode: StructuredMode = "prompt"

    def __init__(self, name: str, answer: Answer) -> None:
        self.name = name
        self.answer = answer
        self.requests: list[Request] = []

    @property
    def spec(self) -> str:
        return f"openai-compat:http://127.0.0.1:9/v1#{self.name}"

    @property
    def endpoint(self) -> str:
        return self.spec

    async def generate(self, request: Request) -> Completion:
        self.requests.append(request)
        text = self.answer(request)
        if text == FAIL:
            raise ModelError("HTTP 400: refused", retryable=False)
        return Completion(text=text, usage=Usage(prompt_tokens=10, completion_tokens=5))

    async def aclose(self) -> None:
        pass


def model(runner: Runner, api: ScriptedAPI, role: str) -> Model:
    return Model(runner, api, ModelConfig(spec=api.spec, max_attempts=1), role)


def agents(
    runner: Runner,
    user: ScriptedAPI,
    validator: ScriptedAPI | None,
    chatbot: ScriptedAPI,
    *,
    form: Form = "chat",
    turn_attempts: int = 3,
    max_utterances: int = 6,
) -> tuple[UserAgent, Validator | None, DialogueLoop]:
    params = GenerationParams()
    user_agent = UserAgent(model(runner, user, "user"), form, params, params)
    judge = Validator(model(runner, validator, "validator"), form, params) if validator else None
    bot = Chatbot(model(runner, chatbot, "assistant"), params)
    loop = DialogueLoop(
        user_agent, judge, bot, turn_attempts=turn_attempts, max_utterances=max_utterances
    )
    return user_agent, judge, loop
