"""The records every stage reads and writes.

Any dialogue (simulated, self-chatted, imported, human ground truth) can be judged, curated,
annotated and meta-evaluated because all stages share these types. Records forbid unknown fields
so that a typo in a hand-written file is an error, not silently dropped data.
"""

from __future__ import annotations

import functools
import json
import secrets
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    field_validator,
    model_validator,
)

from dialbench.hashing import content_hash

# The two sides of a dialogue; a tool turn is neither, and no simulated user ever sees one.
SPEAKERS = ("user", "assistant")
Speaker = Literal["user", "assistant"]
ROLES = (*SPEAKERS, "tool")
Role = Literal["user", "assistant", "tool"]
EndReason = Literal["natural_end", "turn_cap", "validation_failed", "error"]
ParseStatus = Literal["ok", "unscored"]
Verdict = Literal["accepted", "rejected"]
Metadata = dict[str, JsonValue]


@functools.lru_cache(maxsize=1024)
def standard_language_tag(tag: str) -> str:
    """Validate a BCP-47 tag and return its standard form ("ZH-hans" -> "zh-Hans"). langcodes
    loads its tables (a tenth of a command's start) when a first tag is read, so a command that
    fails before reading a record never loads them."""
    import langcodes

    if not langcodes.tag_is_valid(tag):
        raise ValueError(f"{tag!r} is not a valid BCP-47 language tag (e.g. en, zh, de, pt-BR)")
    return str(langcodes.standardize_tag(tag))


def base_language(tag: str) -> str:
    """`zh-Hant` -> `zh`: for rules that depend on the language, not the script or region."""
    return tag.split("-", 1)[0].lower()


LanguageCode = Annotated[str, AfterValidator(standard_language_tag)]
# The language of a figure, table row or model head over every language's items pooled.
ALL_LANGUAGES = "all"
NonEmptyText = Annotated[str, Field(min_length=1)]


# What an annotator may be called: it appears in links, tables, CSV files and log lines.
ANNOTATOR_NAME = r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,99}$"


def left_out_when_none(**field: Any) -> Any:
    """A field added to a record after records were stored and hashed: None by default, and
    left out of dumps while None, so the ids and fingerprints of those records do not move."""
    return Field(default=None, exclude_if=_is_none, **field)


def _is_none(value: object) -> bool:
    return value is None


def _is_empty(value: list[Any]) -> bool:
    return not value


def utc_now() -> datetime:
    return datetime.now(UTC)


class Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StoredRecord(Record):
    """A record with its own table in the run store; `id` is derived from content when empty:
    `id_prefix` and the hash of `id_key()`, so the same content is stored once."""

    id: str = ""
    id_prefix: ClassVar[str] = ""

    def id_key(self) -> JsonValue:
        """What the id is derived from (records that derive it otherwise return None)."""
        return None

    @model_validator(mode="after")
    def _derive_id(self) -> StoredRecord:
        if not self.id and (key := self.id_key()) is not None:
            self.id = f"{self.id_prefix}-{content_hash(key)[:24]}"
        return self


class Usage(Record):
    """Tokens spent on one model call (or summed over several), and their price when known."""

    prompt_tokens: int = Field(default=0, ge=0)
    completion_tokens: int = Field(default=0, ge=0)
    cost_usd: float | None = Field(default=None, ge=0)

    def __add__(self, other: Usage) -> Usage:
        costs = [c for c in (self.cost_usd, other.cost_usd) if c is not None]
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cost_usd=sum(costs) if costs else None,
        )


class UsageLine(Record):
    """One role's use of one model, in one run or summed over runs. Cached calls cost nothing."""

    role: str
    model: str
    calls: int = Field(default=0, ge=0, description="calls answered by the model")
    cached_calls: int = Field(default=0, ge=0)
    failed_calls: int = Field(default=0, ge=0, description="calls that failed after retries")
    retries: int = Field(default=0, ge=0)
    usage: Usage = Field(default_factory=Usage)

    def __add__(self, other: UsageLine) -> UsageLine:
        """The two lines' counts together, under this line's role and model."""
        return self.model_copy(
            update={
                "calls": self.calls + other.calls,
                "cached_calls": self.cached_calls + other.cached_calls,
                "failed_calls": self.failed_calls + other.failed_calls,
                "retries": self.retries + other.retries,
                "usage": self.usage + other.usage,
            }
        )


class Provenance(Record):
    """Where a record came from: enough to reproduce it or to trace it back to its input."""

    run_id: str
    config_hash: str | None = None
    prompt_hashes: dict[str, str] = Field(
        default_factory=dict, description="prompt template name -> sha256 of its text"
    )
    models: dict[str, str] = Field(
        default_factory=dict, description="role (user, assistant, validator, judge) -> model spec"
    )
    source_file: str | None = None
    source_line: int | None = Field(default=None, ge=1)
    structured_mode: str | None = Field(
        default=None,
        description="how a judge was asked for JSON, where its server took another mode than "
        "the configuration's (json_object, prompt)",
    )


class SeedContext(Record):
    """What a dialogue starts from: a MEDAL context (scene, persona, ...) or a BotChat ChatSEED."""

    language: LanguageCode | None = None
    culture: str | None = None
    scene: str | None = None
    persona: str | None = None
    affective_state: str | None = None
    gender: Literal["female", "male"] | None = None
    chatseed: list[NonEmptyText] | None = Field(
        default=None, description="the first utterances of a real dialogue (BotChat)"
    )
    metadata: Metadata = Field(default_factory=dict)


class GenerationAttempt(Record):
    """One try at generating a turn, with the validator's verdict and feedback when validated."""

    text: str
    verdict: Verdict | None = None
    feedback: str | None = None
    validator_model: str | None = None


class ToolUse(Record):
    """What a chatbot asked of a tool (a function, a search, a retriever): production logs hold
    these between the user's turn and the reply, and a reply that contradicts what its tool
    returned is an issue only a judge that sees the call can find."""

    name: NonEmptyText
    arguments: JsonValue = Field(
        default=None, description="as the log gave them: a JSON value, or the raw string"
    )
    call_id: str | None = Field(default=None, description="the log's id tying call to result")
    kind: Literal["function", "retrieval"] = Field(
        default="function", description="retrieval: the result is context fetched for the reply"
    )

    def shown_arguments(self) -> str:
        """The arguments as people and judges read them: a raw string as the log gave it, any
        other value as JSON with its characters kept (`{"city": "Lisbon"}`, `{"城市": "北京"}`)."""
        if isinstance(self.arguments, str):
            return self.arguments
        return "" if self.arguments is None else json.dumps(self.arguments, ensure_ascii=False)


class Turn(Record):
    """One utterance, or one tool call with its result (role `tool`: `tool` is the call and
    `text` what it returned). Empty text is allowed: a chatbot that answers nothing is data to
    judge, and a call whose result the log did not keep has none."""

    role: Role
    text: str
    model: str | None = Field(default=None, description="model spec that wrote it; None = human")
    attempts: list[GenerationAttempt] = Field(default_factory=list)
    tool: ToolUse | None = left_out_when_none()
    metadata: Metadata = Field(default_factory=dict)

    @model_validator(mode="after")
    def _tool_turns_carry_their_call(self) -> Turn:
        if (self.role == "tool") != (self.tool is not None):
            raise ValueError("a turn has `tool` (the call) exactly when its role is 'tool'")
        return self


def speaker_turns(turns: Iterable[Turn]) -> list[Turn]:
    """The utterances of the two sides, tool turns left out: what a simulated user, a chatbot
    continuing a dialogue and a metric trained on two-speaker dialogues are given."""
    return [turn for turn in turns if turn.role != "tool"]


class Participants(Record):
    """Which model played each side; None means a human (or unknown, for imported data)."""

    user: str | None = None
    assistant: str | None = None


class Dialogue(StoredRecord):
    """An ordered exchange between a user and a chatbot.

    `id` is derived from the content when not given, so importing the same file twice stores it
    once. Metadata and provenance are not part of that content.
    """

    language: LanguageCode
    source: str = Field(default="imported", min_length=1)
    seed: SeedContext | None = None
    participants: Participants = Field(default_factory=Participants)
    turns: list[Turn] = Field(min_length=1)
    end_reason: EndReason | None = None
    provenance: Provenance | None = None
    metadata: Metadata = Field(default_factory=dict)

    @field_validator("id")
    @classmethod
    def _addressable(cls, given: str) -> str:
        """Any other id works in a URL (the web app encodes it); browsers resolve these two."""
        if given in {".", ".."}:
            raise ValueError(f"{given!r} is no dialogue id: no URL can name it (choose another)")
        return given

    @model_validator(mode="after")
    def _derive_id(self) -> Dialogue:
        if not self.id:
            self.id = self.content_id()
        return self

    def content_id(self) -> str:
        content = self.model_dump(
            mode="json", include={"language", "seed", "participants", "turns", "end_reason"}
        )
        for turn in content["turns"]:
            del turn["metadata"]
        return "d-" + content_hash(content)[:24]


class Target(Record):
    """What a judgment or annotation is about: a dialogue, one of its turns, or two dialogues."""

    dialogue_id: str = Field(min_length=1)
    turn_index: int | None = Field(default=None, ge=0)
    other_dialogue_id: str | None = None

    @property
    def kind(self) -> Literal["dialogue", "turn", "pair"]:
        if self.other_dialogue_id is not None:
            return "pair"
        return "dialogue" if self.turn_index is None else "turn"

    @model_validator(mode="after")
    def _pair_has_no_turn(self) -> Target:
        if self.other_dialogue_id is not None and self.turn_index is not None:
            raise ValueError("a pairwise target compares whole dialogues: drop turn_index")
        return self


PanelMethod = Literal["majority", "median", "weighted"]


class PanelSettings(Record):
    """Who a judge panel is and how its members' answers became one (`dialbench panel`): part
    of its judgments' configuration, so other members, another method or other weights make
    other judgments beside the old ones."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    members: list[str] = Field(
        min_length=2, description="the members as `ratings.JudgeNames` names them"
    )
    method: PanelMethod
    weights: dict[str, dict[str, dict[str, float]]] = Field(
        default_factory=dict,
        description="weighted panels: language -> dimension -> member -> its vote's weight",
    )


InjectionKind = Literal[
    "instruction", "verdict", "role_tag", "transcript_forgery", "fake_end", "hidden_markup"
]


class InjectionFlag(Record):
    """Text in a judged turn that reads as addressed to its judge (`dialbench.injection`): an
    instruction, a forged verdict, a role tag or chat-template token, a forged transcript line,
    a fake end of the dialogue, or hidden markup. Recorded on the judgment, so a verdict can be
    read knowing what its judge was told by the text it judged."""

    turn_index: int = Field(ge=0)
    kind: InjectionKind
    excerpt: str = Field(max_length=120, description="the text around the match, on one line")
    dialogue_id: str | None = left_out_when_none(
        description="the dialogue of the turn, where a judgment judges two"
    )


class JudgeConfiguration(Record):
    """Everything besides the item, the protocol and the judge model that shapes an answer.

    It is part of a judgment's identity: judging again with other options, sampling settings or
    an edited prompt file makes new judgments beside the old ones instead of finding those done.
    How many calls run at once or how many samples are drawn are not part of it. Frozen, so its
    fingerprint is computed once.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    options: dict[str, JsonValue] = Field(default_factory=dict, description="the protocol's")
    params: dict[str, JsonValue] = Field(
        default_factory=dict, description="generation parameters: temperature, max tokens, ..."
    )
    structured_mode: str = Field(default="", description="how the answer's JSON was asked for")
    max_reasks: int = Field(default=0, ge=0)
    file_hashes: dict[str, str] = Field(
        default_factory=dict, description="prompt and data file name -> sha256 of its text"
    )
    prompt_language: str | None = left_out_when_none(
        description="`dialogue` where each item was asked in its dialogue's language "
        "(`judge --prompt-language`); None for prompts in English",
    )
    calibration: str | None = left_out_when_none(
        description="the sha256 of the calibration that mapped these answers onto the humans' "
        "scale (`dialbench calibrate`); None for a judge's own answers",
    )
    panel: PanelSettings | None = left_out_when_none(
        description="the members and method of a judge panel (`dialbench panel`); None for "
        "one judge's answers",
    )
    defence: str | None = left_out_when_none(
        description="the defence the judged text was shown under (`judge --fence`: fence-v1); "
        "None for text shown as it is",
    )

    @functools.cached_property
    def fingerprint(self) -> str:
        """Short and stable: `c-` and 12 hex digits, shown wherever two configurations meet."""
        return "c-" + content_hash(self.model_dump(mode="json"))[:12]


class Judgment(StoredRecord):
    """One judge's answer on one target under one protocol and configuration: a verdict per
    dimension.

    An output that could not be parsed is `unscored` with no result: never a default label.
    Judgments stored before configurations existed have none, and keep their ids.
    """

    protocol: str = Field(min_length=1)
    judge_model: str = Field(min_length=1)
    target: Target
    sample_index: int = Field(default=0, ge=0)
    configuration: JudgeConfiguration | None = None
    result: dict[str, JsonValue] | None = None
    raw_output: str = ""
    parse_status: ParseStatus
    error: str | None = None
    usage: Usage = Field(default_factory=Usage)
    provenance: Provenance | None = None
    created_at: datetime | None = None
    injection_flags: list[InjectionFlag] = Field(
        default_factory=list,
        exclude_if=_is_empty,
        description="judge-directed text found in the turns judged; not part of the id, and "
        "left out of dumps while empty, so judgments stored before it keep their bytes",
    )

    @model_validator(mode="after")
    def _check(self) -> Judgment:
        if self.parse_status == "ok" and self.result is None:
            raise ValueError("parse_status 'ok' needs a result")
        if self.parse_status == "unscored" and self.result is not None:
            raise ValueError("an unscored judgment has no result (it must never become a label)")
        if not self.id:
            key = [self.protocol, self.judge_model, self.target.model_dump(), self.sample_index]
            if self.configuration is not None:
                key.append(self.configuration.fingerprint)
            self.id = "j-" + content_hash(key)[:24]
        return self


class Annotation(StoredRecord):
    """A human's labels for one target: the counterpart of a Judgment."""

    annotator_id: str = Field(min_length=1)
    target: Target
    labels: dict[str, JsonValue] = Field(min_length=1)
    comment: str | None = None
    created_at: datetime | None = None
    complete: bool = Field(
        default=True,
        exclude_if=lambda complete: complete,
        description="False while the annotator is still at it (the web app's labels before "
        "'done'): agreement and metaeval leave such labels out unless asked",
    )
    review_of: str | None = left_out_when_none(
        description="the id of the judgment these labels review (the web app's review task): "
        "the reviewer's agreement or correction of each of its verdicts",
    )

    id_prefix: ClassVar[str] = "a"

    def id_key(self) -> JsonValue:
        """One label per annotator and target, and beside it one review per judgment reviewed:
        a reviewer's own label of a dialogue and their review of a judge's verdict on it are two
        records (ids of labels that review nothing are as before)."""
        key: list[JsonValue] = [self.annotator_id, self.target.model_dump()]
        return key if self.review_of is None else [*key, self.review_of]


class BenchmarkItem(Record):
    """One dialogue of a curated benchmark, and why curation picked it."""

    dialogue_id: str = Field(min_length=1)
    language: LanguageCode
    reason: str = Field(min_length=1, description="the requirement it was chosen to meet")
    relaxed: list[str] = Field(
        default_factory=list, description="requirements dropped because nothing met them"
    )
    stratum: str | None = left_out_when_none(
        description="an audit sample's stratum (language × chatbot, × flagged or not)"
    )
    inclusion_probability: float | None = left_out_when_none(
        gt=0, le=1, description="an audit sample's chance of drawing this dialogue"
    )


class Stratum(Record):
    """One stratum of a probability sample: how many dialogues it held and how many were drawn."""

    name: str
    language: LanguageCode
    chatbot: str
    flagged: bool | None = Field(default=None, description="None: not split by the judge's flags")
    population: int = Field(ge=1)
    sampled: int = Field(ge=0)


class SampleDesign(Record):
    """How an audit sample was drawn (`dialbench audit draw`): a stratified random sample of
    judged chatbot dialogues, each stratum's drawn without replacement, so a dialogue's
    inclusion probability is its stratum's sampled / population exactly."""

    random_seed: int
    per_cell: int = Field(ge=1, description="dialogues per language × chatbot")
    judge: str | None = Field(default=None, description="whose flags were oversampled")
    protocol: str | None = None
    oversample_flagged: float = Field(
        default=1.0, ge=1, description="how many times as likely a flagged dialogue is drawn"
    )
    strata: list[Stratum]


class Benchmark(StoredRecord):
    """A named, ordered selection of dialogues for human annotation (MEDAL §5.1).

    Its id comes from its name, so curating again under the same name with the same settings
    finds it stored, and with other settings is a conflict instead of a silent overwrite.
    """

    name: str = Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    settings: dict[str, JsonValue] = Field(default_factory=dict)
    items: list[BenchmarkItem] = Field(default_factory=list, description="in selection order")
    excluded: dict[str, list[str]] = Field(
        default_factory=dict, description="reason -> dialogue ids left out before selection"
    )
    design: SampleDesign | None = left_out_when_none(
        description="an audit sample's design; None: curated, not a probability sample"
    )
    provenance: Provenance | None = None

    id_prefix: ClassVar[str] = "b"

    def id_key(self) -> JsonValue:
        return self.name


class Annotator(StoredRecord):
    """A person who labels one benchmark in some languages, or with none reviews a judge's
    verdicts on the dialogues it judged in their languages; known to the web app by a secret
    token of which only the SHA-256 is stored."""

    name: str = Field(min_length=1, max_length=100, pattern=ANNOTATOR_NAME)
    benchmark: str | None = left_out_when_none(
        min_length=1,
        description="the benchmark's name; None: a reviewer only (`serve --review`)",
    )
    languages: list[LanguageCode] = Field(min_length=1)
    token_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    created_at: datetime | None = None
    revoked_at: datetime | None = left_out_when_none(
        description="when `annotate revoke` ended their link (`annotate reissue` gives a new one)",
    )

    id_prefix: ClassVar[str] = "u"

    def id_key(self) -> JsonValue:
        return self.name


class StageRecord(StoredRecord):
    """A pipeline stage that finished: its id is the stage's identity (the hash of its settings
    and inputs), so the next `dialbench run` of an unchanged stage finds it and skips it, unless
    it finished with work left (`failed`), which a run again retries."""

    name: str = Field(min_length=1)
    stage: str = Field(min_length=1)
    summary: str = ""
    seconds: float = Field(default=0.0, ge=0)
    finished_at: datetime = Field(default_factory=utc_now)
    failed: str | None = left_out_when_none(
        description="what of its work failed (or, of the stages it read, which had failed "
        "work); None: done"
    )


def new_invocation_id() -> str:
    """Time-sortable and unique: `20261121T093900-3fa2c1`."""
    return f"{utc_now():%Y%m%dT%H%M%S}-{secrets.token_hex(3)}"


# interrupted: the process died (kill -9, power loss) with the run still `running`.
InvocationStatus = Literal["running", "finished", "failed", "interrupted"]


class Invocation(Record):
    """One invocation of a dialbench command against a run store."""

    id: str = Field(default_factory=new_invocation_id)
    command: str
    config: dict[str, JsonValue] = Field(default_factory=dict)
    config_hash: str = ""
    status: InvocationStatus = "running"
    started_at: datetime = Field(default_factory=utc_now)
    finished_at: datetime | None = None
    dialbench_version: str = ""
    pid: int | None = Field(
        default=None, description="the process, so a run whose process is gone reads interrupted"
    )
    host: str | None = Field(default=None, description="where `pid` is meaningful")
    processor: str | None = Field(
        default=None,
        description="the CPU, and the llama.cpp build's kernels if local models ran "
        "(dialbench.machine): their output depends on those",
    )

    @model_validator(mode="after")
    def _hash_config(self) -> Invocation:
        if not self.config_hash:
            self.config_hash = content_hash(self.config)
        return self


RECORD_TYPES: dict[str, type[StoredRecord]] = {
    "dialogues": Dialogue,
    "judgments": Judgment,
    "annotations": Annotation,
}
