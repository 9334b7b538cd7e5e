"""A whole simulation: contexts x user models x chatbots, concurrent across dialogues.

Each context's first user turn is written once per user model and shared by every chatbot. Each
finished dialogue is filtered and stored in its own transaction under an id derived from what
determines it, so a resumed run skips stored dialogues and replays the rest from the call cache.
Dialogues that ended in `error` are tried again on the next run. A stateful chatbot of the
user's own gets a session per dialogue and run (`session_for`): a dialogue a killed run left
unfinished restarts in a new session, its chatbot calls made again rather than replayed from the
cache into a session that never heard them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from pydantic import Field
from rich.progress import Progress, TaskID

from dialbench.failures import Failures
from dialbench.hashing import content_hash
from dialbench.llm.base import Conversation
from dialbench.llm.collection import calls_started
from dialbench.llm.runner import CallFailed, Runner
from dialbench.llm.specs import ModelConfig
from dialbench.prompts import load_prompt
from dialbench.schema import Dialogue, Invocation, Participants, Provenance, Record, SeedContext
from dialbench.seeds import LanguageTarget, load_seed_texts, sample_contexts, starter_texts
from dialbench.simulate import chatbot, filters, user, validator
from dialbench.simulate.chatbot import Chatbot
from dialbench.simulate.config import SimulationConfig, resolve_form
from dialbench.simulate.dialogue import DialogueLoop, Outcome, UserTurn, write_user_turn
from dialbench.simulate.user import UserAgent
from dialbench.simulate.validator import Validator
from dialbench.store import RunStore

SOURCE, EXCLUDED_SOURCE = "medal", "medal-excluded"


class SimulationResult(Record):
    run_id: str
    planned: int = Field(description="dialogues the config asks for")
    generated: int = 0
    already_stored: int = 0
    end_reasons: dict[str, int] = Field(default_factory=dict)
    user_attempts: int = 0
    accepted_attempts: int = 0
    flagged: dict[str, int] = Field(default_factory=dict, description="filter flag -> dialogues")
    excluded: int = 0
    failures: Failures = Field(default_factory=lambda: Failures(what="dialogues"))

    @property
    def acceptance_rate(self) -> float | None:
        return self.accepted_attempts / self.user_attempts if self.user_attempts else None


def build_contexts(
    config: SimulationConfig, languages: Sequence[LanguageTarget] | None = None
) -> list[SeedContext]:
    """The config's contexts, crossed with `languages` (default: the config's)."""
    seeds = config.seeds
    scenes = load_seed_texts(seeds.scenes, "scene") if seeds.scenes else starter_texts("scene")
    personas = (
        load_seed_texts(seeds.personas, "persona") if seeds.personas else starter_texts("persona")
    )
    targets = config.languages if languages is None else languages
    return sample_contexts(scenes, personas, targets, seeds.contexts, seeds.seed)


def prompt_hashes() -> dict[str, str]:
    names = (*user.PROMPTS, *validator.PROMPTS, *chatbot.PROMPTS, *filters.PROMPTS)
    return {name: load_prompt(name).sha256 for name in names}


def _generation_settings(config: SimulationConfig) -> dict[str, Any]:
    """What shapes a dialogue besides its context and models (concurrency does not). A
    validator threshold left unset is left out, so dialogues simulated before it existed keep
    their ids."""
    settings = config.model_dump(
        mode="json",
        include={"user", "validator", "chatbots", "max_utterances", "filter"},
        exclude={"user": {"models"}, "chatbots": {"models"}},
    )
    if settings["validator"]["threshold"] is None:
        del settings["validator"]["threshold"]
    return settings


def dialogue_id(context: SeedContext, user_spec: str, chatbot_spec: str, settings: Any) -> str:
    key = [context.model_dump(mode="json"), user_spec, chatbot_spec, settings]
    return "d-" + content_hash(key)[:24]


def session_for(dialogue: str, run: Invocation) -> str:
    """A stateful bot's session: the dialogue's, new in each run that plays it."""
    return f"{dialogue}.{run.id}"


class Simulation:
    """Holds the run's models and store; `run()` generates whatever is not stored yet."""

    def __init__(
        self, config: SimulationConfig, store: RunStore, run: Invocation, runner: Runner
    ) -> None:
        self.config = config
        self.store = store
        self.run_record = run
        self.runner = runner
        self.settings = _generation_settings(config)
        self.hashes = prompt_hashes()
        validator_config = config.validator.model
        self.validator = (
            Validator(
                runner.model(validator_config, "validator"),
                resolve_form(config.validator.form, validator_config),
                config.validator.params,
                config.validator.threshold,
            )
            if validator_config is not None
            else None
        )
        self.filter_model = (
            runner.model(config.filter.llm, "filter") if config.filter.llm is not None else None
        )
        for bot in config.chatbots.models:  # a bot's missing module or function, before any call
            runner.model(bot, "assistant")
        self.slots = asyncio.Semaphore(config.concurrency)
        self.summary = SimulationResult(run_id=run.id, planned=0)
        self.progress: tuple[Progress, TaskID] | None = None

    def _user(self, model: ModelConfig) -> UserAgent:
        user_config = self.config.user
        return UserAgent(
            self.runner.model(model, "user"),
            resolve_form(user_config.form, model),
            user_config.first_turn,
            user_config.turns,
        )

    def _pending(self, ids: list[str]) -> list[bool]:
        """Whether each dialogue still has to be generated (absent, or stored with an error)."""
        stored = {d.id: d for i in ids if (d := self.store.get(Dialogue, i)) is not None}
        return [i not in stored or stored[i].end_reason == "error" for i in ids]

    async def run(self, contexts: list[SeedContext], progress: Progress) -> None:
        jobs = []
        for context in contexts:
            for user_model in self.config.user.models:
                agent = self._user(user_model)
                bots = [
                    (m, dialogue_id(context, user_model.spec, m.spec, self.settings))
                    for m in self.config.chatbots.models
                ]
                pending = self._pending([i for _, i in bots])
                self.summary.planned += len(bots)
                self.summary.already_stored += pending.count(False)
                todo = [bot for bot, wanted in zip(bots, pending, strict=True) if wanted]
                if todo:
                    jobs.append(self._starter(context, agent, todo))
        remaining = self.summary.planned - self.summary.already_stored
        self.progress = (progress, progress.add_task("simulate", total=remaining, acceptance="-"))
        calls_started()
        await asyncio.gather(*jobs)
        await self.runner.stored()

    async def _starter(
        self, context: SeedContext, agent: UserAgent, bots: list[tuple[ModelConfig, str]]
    ) -> None:
        """The shared first user turn, then one dialogue per chatbot."""
        try:
            async with self.slots:
                first = await write_user_turn(
                    agent, self.validator, context, [], self.config.validator.first_turn_attempts
                )
        except CallFailed as failure:
            first_failed = Outcome(turns=[], end_reason="error", error=str(failure))
            for bot, id_ in bots:
                await self._finish(context, agent, bot.spec, id_, first_failed)
            return
        await asyncio.gather(*(self._dialogue(context, agent, first, b, i) for b, i in bots))

    async def _dialogue(
        self, context: SeedContext, agent: UserAgent, first: UserTurn, bot: ModelConfig, id_: str
    ) -> None:
        chatbot = Chatbot(self.runner.model(bot, "assistant"), self.config.chatbots.params)
        conversation = chatbot.model.seen(
            Conversation(
                id=id_,
                language=context.language or "en",
                session=session_for(id_, self.run_record),
            )
        )
        loop = DialogueLoop(
            agent,
            self.validator,
            chatbot,
            turn_attempts=self.config.validator.turn_attempts,
            max_utterances=self.config.max_utterances,
            conversation=conversation,
        )
        async with self.slots:
            outcome = await loop.run(context, first)
        if conversation is not None and conversation.session is not None:
            outcome = outcome.model_copy(update={"session": conversation.session})
        await self._finish(context, agent, bot.spec, id_, outcome)

    async def _finish(
        self, context: SeedContext, agent: UserAgent, bot: str, id_: str, outcome: Outcome
    ) -> None:
        dialogue = self._dialogue_record(context, agent, bot, id_, outcome)
        try:
            checked = await filters.check_dialogue(
                dialogue, rules=self.config.filter.rules, llm=self.filter_model
            )
        except CallFailed as failure:
            checked = filters.FilterResult(details=[f"LLM filter failed: {failure}"])
        excluded = bool(checked.flags) and self.config.filter.exclude
        metadata = {**dialogue.metadata, "filter": checked.model_dump(mode="json")}
        dialogue = dialogue.model_copy(
            update={"metadata": metadata, "source": EXCLUDED_SOURCE if excluded else SOURCE}
        )
        self.runner.store([dialogue], self.run_record)
        self._count(dialogue, checked, excluded)

    def _dialogue_record(
        self, context: SeedContext, agent: UserAgent, bot: str, id_: str, outcome: Outcome
    ) -> Dialogue:
        user_spec = agent.model.spec
        models = {"user": user_spec, "assistant": bot}
        if self.validator is not None:
            models["validator"] = self.validator.model.spec
        if self.filter_model is not None:
            models["filter"] = self.filter_model.spec
        metadata: dict[str, Any] = {"user_form": agent.form}
        if outcome.error is not None:
            metadata["error"] = outcome.error
        if outcome.session is not None:
            metadata["chatbot_session"] = outcome.session
        if outcome.end_attempts:
            metadata["end_attempts"] = [a.model_dump(mode="json") for a in outcome.end_attempts]
        turns = outcome.turns or [UserTurn(text=None, attempts=[]).as_turn(user_spec)]
        return Dialogue(
            id=id_,
            language=context.language or "en",
            source=SOURCE,
            seed=context,
            participants=Participants(user=user_spec, assistant=bot),
            turns=turns,
            end_reason=outcome.end_reason,
            provenance=Provenance(
                run_id=self.run_record.id,
                config_hash=self.config.config_hash(),
                prompt_hashes=self.hashes,
                models=models,
            ),
            metadata=metadata,
        )

    def _count(self, dialogue: Dialogue, checked: filters.FilterResult, excluded: bool) -> None:
        summary = self.summary
        summary.generated += 1
        reason = dialogue.end_reason or "unknown"
        summary.end_reasons[reason] = summary.end_reasons.get(reason, 0) + 1
        if reason == "error":
            summary.failures.add(dialogue.metadata.get("error"))
        attempts = [a for t in dialogue.turns for a in t.attempts if a.verdict is not None]
        summary.user_attempts += len(attempts)
        summary.accepted_attempts += sum(a.verdict == "accepted" for a in attempts)
        for flag in checked.flags:
            summary.flagged[flag] = summary.flagged.get(flag, 0) + 1
        summary.excluded += excluded
        if self.progress is not None:
            rate = summary.acceptance_rate
            bar, task = self.progress
            bar.update(task, advance=1, acceptance="-" if rate is None else f"{rate:.0%}")
