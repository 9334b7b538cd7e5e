"""The simulation config: a YAML file validated into records, errors located by line and field.

    languages: [en, zh, {language: pt, culture: Portugal}]
    seeds: {contexts: 20, seed: 0, scenes: scenes.jsonl, personas: personas.jsonl}
    user: {models: [local:qwen2.5-0.5b], form: auto}
    validator: {model: local:qwen2.5-0.5b}
    chatbots: {models: [local:qwen2.5-0.5b, openai:gpt-4.1-mini]}
    max_utterances: 10

Defaults follow MEDAL (App. C.2): first user turn at temperature 1.5, later turns and the chatbot
at 0.9 / top_p 0.95 / 512 tokens, the validator at 0.1 / 64 tokens, 10 then 5 attempts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, field_validator

from dialbench.hashing import content_hash
from dialbench.llm.base import GenerationParams
from dialbench.llm.specs import (
    DEFAULT_LOCAL_MODEL,
    ModelConfig,
    as_model_config,
    as_model_configs,
    readable_model,
)
from dialbench.schema import Record
from dialbench.seeds import LanguageTarget
from dialbench.yaml_config import load_yaml_config

# Upper bounds on the counts a config sets: a typo of a few extra digits is an error, not hours
# of work or gigabytes of memory. MEDAL itself used 400 contexts per language.
MAX_CONTEXTS = 10_000
MAX_UTTERANCES = 200
MAX_CONCURRENCY = 1024
MAX_ATTEMPTS = 100
MAX_LANGUAGES = 100

Form = Literal["chat", "transcript"]
FormChoice = Literal["auto", "chat", "transcript"]


ModelEntry = Annotated[ModelConfig, AfterValidator(readable_model)]


def _distinct(entries: list[Any], keys: list[str]) -> list[Any]:
    """The list as it is, unless two entries are the same (after normalisation: en and EN)."""
    repeated = sorted({key for key in keys if keys.count(key) > 1})
    if repeated:
        raise ValueError(f"lists {', '.join(repeated)} more than once")
    return entries


def _as_language_target(value: Any) -> Any:
    return {"language": value} if isinstance(value, str) else value


class SeedsConfig(Record):
    """Where scenes and personas come from (default: the starter set) and how many to sample."""

    scenes: Path | None = Field(default=None, description="JSONL/CSV/TXT; relative to the config")
    personas: Path | None = None
    contexts: int = Field(default=10, ge=1, le=MAX_CONTEXTS, description="contexts per language")
    seed: int = 0


class UserConfig(Record):
    models: list[ModelEntry] = Field(
        default_factory=lambda: [ModelConfig(spec=DEFAULT_LOCAL_MODEL)]
    )
    form: FormChoice = Field(
        default="auto",
        description="chat messages, or transcript completion that keeps small models in role; "
        "auto = transcript for local models, chat otherwise",
    )
    first_turn: GenerationParams = GenerationParams(
        temperature=1.5, presence_penalty=0.6, max_tokens=128
    )
    turns: GenerationParams = GenerationParams(temperature=0.9, top_p=0.95, max_tokens=512)

    _models = field_validator("models", mode="before")(as_model_configs)
    _distinct_models = field_validator("models")(lambda v: _distinct(v, [m.spec for m in v]))


class ValidatorConfig(Record):
    model: ModelEntry | None = Field(
        default_factory=lambda: ModelConfig(spec=DEFAULT_LOCAL_MODEL),
        description="null turns validation off: every user turn is kept without a verdict",
    )
    form: FormChoice = Field(
        default="auto", description="chat, or a few-shot verdict list for small local models"
    )
    params: GenerationParams = GenerationParams(temperature=0.1, max_tokens=64)
    threshold: float | None = Field(
        default=None,
        gt=0.0,
        lt=1.0,
        description="accept when P(yes), read from the first answer token's log-probabilities, "
        "reaches this; small models rank far better than they answer. Asks in chat form. "
        "Default: read the answer's text",
    )
    first_turn_attempts: int = Field(default=10, ge=1, le=MAX_ATTEMPTS)
    turn_attempts: int = Field(default=5, ge=1, le=MAX_ATTEMPTS)

    _model = field_validator("model", mode="before")(as_model_config)


class ChatbotsConfig(Record):
    models: list[ModelEntry] = Field(min_length=1)
    params: GenerationParams = GenerationParams(temperature=0.9, top_p=0.95, max_tokens=512)

    _models = field_validator("models", mode="before")(as_model_configs)
    _distinct_models = field_validator("models")(lambda v: _distinct(v, [m.spec for m in v]))


class FilterConfig(Record):
    """MEDAL §3.2: drop dialogues whose user side is in the wrong language or plays the bot."""

    rules: bool = Field(
        default=True, description="lingua language identification and assistant-only phrases"
    )
    llm: ModelEntry | None = Field(
        default=None, description="also ask this model about language and swapped roles"
    )
    exclude: bool = Field(
        default=True, description="store flagged dialogues as source medal-excluded"
    )

    _llm = field_validator("llm", mode="before")(as_model_config)


class SimulationConfig(Record):
    languages: list[LanguageTarget] = Field(min_length=1, max_length=MAX_LANGUAGES)
    seeds: SeedsConfig = SeedsConfig()
    user: UserConfig = UserConfig()
    validator: ValidatorConfig = ValidatorConfig()
    chatbots: ChatbotsConfig
    max_utterances: int = Field(
        default=10, ge=1, le=MAX_UTTERANCES, description="user and chatbot turns together"
    )
    concurrency: int = Field(
        default=64, ge=1, le=MAX_CONCURRENCY, description="dialogues in flight at once"
    )
    filter: FilterConfig = FilterConfig()

    _languages = field_validator("languages", mode="before")(
        lambda v: [_as_language_target(x) for x in v] if isinstance(v, list) else v
    )
    _distinct_languages = field_validator("languages")(
        lambda v: _distinct(v, [t.language for t in v])
    )

    def config_hash(self) -> str:
        return content_hash(self.model_dump(mode="json"))


def resolve_form(choice: FormChoice, model: ModelConfig) -> Form:
    """`auto` means transcript form for local models and chat form for everything else."""
    if choice != "auto":
        return choice
    return "transcript" if model.local else "chat"


def load_config(path: str | Path) -> SimulationConfig:
    """Read and validate a config; relative seed files are resolved against its folder."""
    path = Path(path)
    config = load_yaml_config(
        path, SimulationConfig, "a simulation config", "languages:, chatbots:, ..."
    )
    seeds = config.seeds
    resolved = {
        name: path.parent / value
        for name, value in (("scenes", seeds.scenes), ("personas", seeds.personas))
        if value is not None and not value.is_absolute()
    }
    return config.model_copy(update={"seeds": seeds.model_copy(update=resolved)})
