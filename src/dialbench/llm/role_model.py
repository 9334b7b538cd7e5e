"""`Model`: what every role holds. Chat, completion, translation, structured output and yes/no
probabilities; async first, with sync twins for scripts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from dialbench.llm.base import (
    Completion,
    Conversation,
    GenerationParams,
    JsonSchema,
    Message,
    ModelAPI,
    Request,
    ToolDefinition,
)
from dialbench.llm.specs import ModelConfig
from dialbench.llm.structured import DEFAULT_MAX_REASKS, StructuredResult, structured_output
from dialbench.llm.yesno import YesNo, yes_no_from, yes_no_request

if TYPE_CHECKING:
    from dialbench.llm.runner import Runner

MessagesLike = Sequence[Message | dict[str, Any]]


def as_messages(messages: MessagesLike) -> tuple[Message, ...]:
    """Messages, from dicts in the OpenAI chat shape too (tool calls, tool results)."""
    return tuple(m if isinstance(m, Message) else Message.model_validate(m) for m in messages)


class Model:
    """A model bound to a runner (cache, limits, retries, accounting) and a role."""

    def __init__(self, runner: Runner, api: ModelAPI, config: ModelConfig, role: str) -> None:
        self.runner = runner
        self.api = api
        self.config = config
        self.role = role

    @property
    def spec(self) -> str:
        return self.api.spec

    async def _call(self, request: Request) -> Completion:
        return await self.runner.call(self.api, self.config, self.role, request)

    @property
    def takes_tools(self) -> bool:
        """Whether the tools `chat` is given reach the model; where not, it is sent none."""
        return self.api.takes_tools

    @property
    def own_bot(self) -> bool:
        """A chatbot of the user's own (`python:`, `http:`), not a model."""
        return self.api.own_bot

    def seen(self, conversation: Conversation | None) -> Conversation | None:
        """What of the dialogue the backend sees, and so what its cache keys hold: nothing for
        a model; the id and language for a bot; the session too for a stateful one."""
        if conversation is None or not self.api.own_bot:
            return None
        return (
            conversation if self.api.stateful else conversation.model_copy(update={"session": None})
        )

    async def chat(
        self,
        messages: MessagesLike,
        params: GenerationParams | None = None,
        *,
        sample: int = 0,
        conversation: Conversation | None = None,
        tools: Sequence[ToolDefinition] = (),
    ) -> Completion:
        """`conversation`: the dialogue this turn belongs to, for a bot of the user's own.
        `tools`: functions the model may call (its calls come back in `tool_calls`); dropped
        for a backend that takes none (`takes_tools`), so its cache keys never hold them."""
        request = Request(
            kind="chat",
            messages=as_messages(messages),
            params=params or GenerationParams(),
            sample=sample,
            conversation=self.seen(conversation),
            tools=tuple(tools) if self.api.takes_tools else (),
        )
        return await self._call(request)

    async def complete(
        self, prompt: str, params: GenerationParams | None = None, *, sample: int = 0
    ) -> Completion:
        """Raw continuation of `prompt`: keeps small models in a role via transcript + stop."""
        request = Request(
            kind="complete", prompt=prompt, params=params or GenerationParams(), sample=sample
        )
        return await self._call(request)

    async def translate(
        self,
        text: str,
        source: str | None,
        target: str | None,
        params: GenerationParams | None = None,
    ) -> Completion:
        """A machine-translation model's translation of `text`; languages in its own codes."""
        request = Request(
            kind="translate",
            prompt=text,
            params=params or GenerationParams(),
            source_language=source,
            target_language=target,
        )
        return await self._call(request)

    async def structured(
        self,
        messages: MessagesLike,
        json_schema: JsonSchema,
        params: GenerationParams | None = None,
        *,
        max_reasks: int = DEFAULT_MAX_REASKS,
        sample: int = 0,
        top_logprobs: int | None = None,
    ) -> StructuredResult:
        return await structured_output(
            self._call,
            as_messages(messages),
            json_schema,
            params or GenerationParams(),
            schema_in_prompt=self.api.structured_mode == "prompt",
            max_reasks=max_reasks,
            sample=sample,
            top_logprobs=top_logprobs,
        )

    async def yes_probability(self, messages: MessagesLike) -> YesNo:
        return yes_no_from(await self._call(yes_no_request(as_messages(messages))))

    def chat_sync(
        self, messages: MessagesLike, params: GenerationParams | None = None
    ) -> Completion:
        return self.runner.run_sync(self.chat(messages, params))

    def complete_sync(self, prompt: str, params: GenerationParams | None = None) -> Completion:
        return self.runner.run_sync(self.complete(prompt, params))

    def structured_sync(
        self,
        messages: MessagesLike,
        json_schema: JsonSchema,
        params: GenerationParams | None = None,
    ) -> StructuredResult:
        return self.runner.run_sync(self.structured(messages, json_schema, params))

    def yes_probability_sync(self, messages: MessagesLike) -> YesNo:
        return self.runner.run_sync(self.yes_probability(messages))
