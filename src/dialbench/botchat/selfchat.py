"""BotChat self-chat (Algorithm 1): one model writes a whole dialogue from a ChatSEED, utterance by
utterance, playing both speakers.

At each step the model sees the system prompt of Appendix B, everything before the last
utterance as history, and the last utterance as the user message (its own earlier utterances
are its assistant turns), until the dialogue holds N utterances, the seed included. When the
history does not fit the context window, the oldest utterances are dropped until it does (the
paper's rule); how many were dropped at each step is stored on the dialogue.

Each finished dialogue is stored in its own transaction under an id derived from what
determines it (ChatSEED dialogue, model, N, generation settings, prompt), and every call is
cached as it completes, so a killed run resumes without asking a completed utterance again and
a re-run makes no calls. A dialogue whose call failed is stored as `error` and redone next time.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from pydantic import Field

from dialbench.botchat.config import SelfChatConfig
from dialbench.botchat.tokens import cl100k_tokens
from dialbench.errors import DialbenchError
from dialbench.failures import Failures
from dialbench.hashing import content_hash
from dialbench.llm.base import GenerationParams, Message
from dialbench.llm.collection import calls_started
from dialbench.llm.reply_text import reply_metadata
from dialbench.llm.role_model import Model
from dialbench.llm.runner import CallFailed, Runner
from dialbench.llm.specs import ModelConfig
from dialbench.prompts import load_prompt
from dialbench.schema import (
    Dialogue,
    Invocation,
    Participants,
    Provenance,
    Record,
    SeedContext,
    Turn,
    speaker_turns,
)
from dialbench.store import RunStore

SOURCE = "selfchat"
PACKAGE = "dialbench.botchat"  # where the prompt file sits
SYSTEM_PROMPT = "selfchat_system"
MESSAGE_OVERHEAD_TOKENS = 8  # role markers and separators a chat template adds per message


class SelfChatResult(Record):
    run_id: str
    seeds: int
    planned: int
    already_stored: int = 0
    generated: int = 0
    failures: Failures = Field(default_factory=lambda: Failures(what="self-chats"))
    dropped_steps: int = Field(default=0, description="steps whose history was cut to fit")


def chatseed(dialogue: Dialogue) -> list[str]:
    """The ChatSEED of a seed dialogue: its `seed.chatseed`, else its first two utterances
    (tool turns are no utterance: a self-chat has two speakers and no tools)."""
    if dialogue.seed is not None and dialogue.seed.chatseed:
        return list(dialogue.seed.chatseed)
    return [turn.text for turn in speaker_turns(dialogue.turns)[:2]]


def seed_dialogues(store: RunStore, config: SelfChatConfig) -> list[Dialogue]:
    """The seed dialogues in storage order, filtered and limited; none is an error."""
    found = [
        d
        for d in store.records(Dialogue, source=config.seeds)
        if len(speaker_turns(d.turns)) >= config.min_seed_utterances and len(chatseed(d)) >= 1
    ]
    if config.limit is not None:
        found = found[: config.limit]
    if not found:
        raise DialbenchError(
            f"{store.path.parent} holds no {config.seeds!r} dialogues with at least "
            f"{config.min_seed_utterances} utterance(s) to seed self-chats; import ChatSEEDs first "
            f"(dialbench import mutual_test_chatseeds.xlsx --run {store.path.parent})"
        )
    too_long = [d for d in found if len(chatseed(d)) > config.n]
    if too_long:
        raise DialbenchError(
            f"--n {config.n} is smaller than the ChatSEED of {too_long[0].id} "
            f"({len(chatseed(too_long[0]))} utterances): N counts the seed, so it must be at "
            "least that"
        )
    return found


def speaker_roles(count: int) -> list[str]:
    """Chat roles of the history before the last utterance: the model speaks next, so the
    utterance just before the last is its own (assistant), and roles alternate backwards."""
    return ["assistant" if (count - 1 - i) % 2 == 0 else "user" for i in range(count)]


def fit_history(
    system: str, history: Sequence[str], last: str, max_tokens: int, context_tokens: int | None
) -> int:
    """How many of the oldest history utterances to drop so that the prompt plus the reply fit
    the context window (cl100k tokens, plus a per-message allowance). The last utterance is
    never dropped, so a window too small even for it drops the whole history and no more."""
    if context_tokens is None:
        return 0

    def cost(text: str) -> int:
        return cl100k_tokens(text) + MESSAGE_OVERHEAD_TOKENS

    total = cost(system) + cost(last) + max_tokens + sum(cost(u) for u in history)
    dropped = 0
    while dropped < len(history) and total > context_tokens:
        total -= cost(history[dropped])
        dropped += 1
    return dropped


def messages(system: str, utterances: Sequence[str], dropped: int) -> list[Message]:
    history = utterances[:-1]
    roles = speaker_roles(len(history))
    shown = [
        Message(role="assistant" if role == "assistant" else "user", content=text)
        for role, text in zip(roles[dropped:], history[dropped:], strict=True)
    ]
    return [
        Message(role="system", content=system),
        *shown,
        Message(role="user", content=utterances[-1]),
    ]


def context_window(config: SelfChatConfig, model: ModelConfig) -> int | None:
    if config.context_tokens is not None:
        return config.context_tokens
    return model.settings.context_window()


def dialogue_id(seed: Dialogue, model: ModelConfig, config: SelfChatConfig) -> str:
    """Derived from everything that determines the dialogue; concurrency and limits are not."""
    key = [
        seed.id,
        chatseed(seed),
        model.spec,
        config.n,
        config.params.model_dump(mode="json"),
        context_window(config, model),
        load_prompt(SYSTEM_PROMPT, PACKAGE).sha256,
    ]
    return "d-" + content_hash(key)[:24]


async def continue_chatseed(
    model: Model,
    seed: list[str],
    n: int,
    params: GenerationParams,
    context_tokens: int | None,
) -> tuple[list[str], list[dict[str, Any]], str | None]:
    """Algorithm 1: the utterances (seed first), each generated one's turn metadata (the
    history cut at its step, and how its reply was made fit to store, if it was), and the
    failure that ended it early, if one did."""
    system = load_prompt(SYSTEM_PROMPT, PACKAGE).text.strip()
    utterances = list(seed)
    generated: list[dict[str, Any]] = []
    while len(utterances) < n:
        dropped = fit_history(
            system, utterances[:-1], utterances[-1], params.max_tokens, context_tokens
        )
        try:
            reply = await model.chat(messages(system, utterances, dropped), params)
        except CallFailed as failure:
            return utterances, generated, str(failure)
        utterances.append(reply.text.strip())
        generated.append({"dropped_utterances": dropped, **reply_metadata(reply)})
    return utterances, generated, None


class SelfChat:
    def __init__(
        self, config: SelfChatConfig, store: RunStore, run: Invocation, runner: Runner
    ) -> None:
        self.config = config
        self.store = store
        self.run_record = run
        self.models = [runner.model(m, role="selfchat") for m in config.models]
        self.slots = asyncio.Semaphore(config.concurrency)
        self.summary = SelfChatResult(run_id=run.id, seeds=0, planned=0)

    async def run(self, seeds: list[Dialogue]) -> SelfChatResult:
        self.summary.seeds = len(seeds)
        jobs = []
        for seed in seeds:
            for model in self.models:
                id_ = dialogue_id(seed, model.config, self.config)
                self.summary.planned += 1
                stored = self.store.get(Dialogue, id_)
                if stored is not None and stored.end_reason != "error":
                    self.summary.already_stored += 1
                else:
                    jobs.append(self._one(seed, model, id_))
        calls_started()
        await asyncio.gather(*jobs)
        return self.summary

    async def _one(self, seed: Dialogue, model: Model, id_: str) -> None:
        window = context_window(self.config, model.config)
        start = chatseed(seed)
        async with self.slots:
            utterances, generated, error = await continue_chatseed(
                model, start, self.config.n, self.config.params, window
            )
        self.store.add(
            [self._record(seed, model, id_, utterances, generated, window, error)],
            self.run_record,
            on_conflict="replace",
        )
        self.summary.generated += 1
        self.summary.dropped_steps += sum(1 for turn in generated if turn["dropped_utterances"])
        if error is not None:
            self.summary.failures.add(error)

    def _record(
        self,
        seed: Dialogue,
        model: Model,
        id_: str,
        utterances: list[str],
        generated: list[dict[str, Any]],
        window: int | None,
        error: str | None,
    ) -> Dialogue:
        start = chatseed(seed)
        turns = [
            Turn(
                role="user" if i % 2 == 0 else "assistant",
                text=text,
                model=None if i < len(start) else model.spec,
                metadata={} if i < len(start) else generated[i - len(start)],
            )
            for i, text in enumerate(utterances)
        ]
        metadata: dict[str, object] = {
            "chatseed_dialogue": seed.id,
            "n": self.config.n,
            "seed_utterances": len(start),
            "dropped_utterances": [turn["dropped_utterances"] for turn in generated],
            "context_tokens": window,
        }
        if error is not None:
            metadata["error"] = error
        return Dialogue.model_validate(
            {
                "id": id_,
                "language": seed.language,
                "source": SOURCE,
                "seed": SeedContext(
                    language=seed.language, chatseed=start, metadata={"dialogue_id": seed.id}
                ),
                "participants": Participants(user=model.spec, assistant=model.spec),
                "turns": turns,
                "end_reason": "error" if error is not None else "turn_cap",
                "provenance": Provenance(
                    run_id=self.run_record.id,
                    config_hash=self.run_record.config_hash,
                    prompt_hashes={SYSTEM_PROMPT: load_prompt(SYSTEM_PROMPT, PACKAGE).sha256},
                    models={"user": model.spec, "assistant": model.spec},
                ),
                "metadata": metadata,
            }
        )
