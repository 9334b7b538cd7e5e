"""What a judging protocol is: the structured questions it asks about an item, and how the
validated answers become one judgment's result.

Three kinds of item, each a base class that enumerates its targets: a whole dialogue
(`DialogueProtocol`), one chatbot turn in its dialogue (`TurnProtocol`, every turn or only the
last), and an ordered pair of dialogues (`PairProtocol`). A protocol knows nothing of models,
caches or the store: `judging.py` does the asking and storing. One task is one judgment; a task
may need several questions (submetrics asks understandability without the context and
sensibleness with it), and its result exists only when all are answered. A protocol opts into
`few_shot=N` by saying how many examples each question wants and what the humans' labels
answer (`examples_wanted`, `example_answer`); the base chooses them (`judge/few_shot.py`), puts
them before each item, records them in the configuration and holds their dialogues out.

A protocol lives in its own package under `judge/protocols/` with its prompt files and is
registered by one line in `judge/registry.py`. It declares its chatbot figures as data
(`chatbot_figures`, `figures_section`: `judge/protocol_figures.py`), which `figures/` and the
report read; what the report draws of it beyond them is `report/`'s (`report/protocols/`), never
the protocol's.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import defaultdict
from collections.abc import Collection, Iterator, Mapping, Sequence
from typing import Any, ClassVar, Generic, Literal, TypeVar

from pydantic import Field, JsonValue

from dialbench.hashing import canonical_json
from dialbench.judge.few_shot import (
    EXAMPLES_KEY,
    ChosenExamples,
    ExampleAnswer,
    HumanExample,
    Shot,
    choose,
)
from dialbench.judge.prompt_language import PromptFiles
from dialbench.judge.protocol_figures import FiguresSection, MeanFigure
from dialbench.judge.settings import JudgeSettings
from dialbench.llm.base import GenerationParams, JsonSchema, Message
from dialbench.llm.expected import ScoredField
from dialbench.prompts import Prompt
from dialbench.schema import Dialogue, Record, Target

Result = dict[str, JsonValue]


class Question(Record):
    """One structured call: messages and the JSON schema the answer must satisfy. Each of the
    `scored` fields of the answer becomes the expectation over its values' probabilities
    (`llm/expected.py`) instead of the value written."""

    name: str
    messages: tuple[Message, ...]
    json_schema: JsonSchema
    params: GenerationParams
    scored: list[ScoredField] = Field(default_factory=list)


class Task(Record):
    """One judgment to make: its target and the questions it needs."""

    target: Target
    questions: list[Question] = Field(min_length=1)


def added_option(default: Any, description: str, **constraints: Any) -> Any:
    """A field for an option added to a protocol after judgments were stored under it: at its
    default it is left out of the configuration, so those judgments keep their ids."""
    return Field(
        default=default, description=description, json_schema_extra={"added": True}, **constraints
    )


class ProtocolOptions(Record):
    """A protocol's own options, given as `--option KEY=VALUE`; part of each judgment's
    configuration, so judgments under other options are kept apart."""

    def configuration(self) -> dict[str, JsonValue]:
        """The options as a judgment's configuration holds them (`added_option`)."""
        dumped = self.model_dump(mode="json")
        for name, field in type(self).model_fields.items():
            extra = field.json_schema_extra
            if (
                isinstance(extra, dict)
                and extra.get("added")
                and getattr(self, name) == field.default
            ):
                del dumped[name]
        return dumped


class TurnOptions(ProtocolOptions):
    turns: Literal["all", "last"] = Field(
        default="all", description="judge every chatbot turn, or only each dialogue's last one"
    )


Scoring = Literal["argmax", "expected"]


def scoring_option() -> Any:
    """The `scoring` option of a protocol whose answers hold scores `scoring=expected` weighs."""
    return added_option(
        "argmax",
        "argmax: the score the judge wrote; expected: the mean of the allowed scores weighted "
        "by their token probabilities (needs a backend with log-probabilities)",
    )


def few_shot_option() -> Any:
    """The `few_shot` option of a protocol that shows reviewed examples (`judge/few_shot.py`)."""
    return added_option(
        0,
        "show N reviewed examples of the dialogue's language before each item: the humans' "
        "labels of other items (the judged run's, or --examples-from's), spread over the "
        "labels' values, then by the sha256 of their ids; the dialogues they come from are not "
        "judged",
        ge=0,
    )


def scored_fields(scoring: Scoring, *fields: ScoredField) -> list[ScoredField]:
    """The fields a question's answer has weighed under this scoring: all or none."""
    return list(fields) if scoring == "expected" else []


def enum_of(values: range | list[int]) -> JsonSchema:
    """Bounded integers as an enum: llama.cpp's grammar ignores minimum and maximum."""
    return {"type": "integer", "enum": list(values)}


def hashes(*prompts: Prompt) -> dict[str, str]:
    return {p.name: p.sha256 for p in prompts}


E = TypeVar("E", bound=Record)


class FewShotExamples(Record, Generic[E]):
    """A protocol's in-context examples: a YAML file beside its prompts, loaded with
    `load_yaml_record` and hashed into the configuration of the judgments that use them."""

    examples: list[E] = Field(min_length=1)
    sha256: str


# A MEDAL dialogue has about 10 utterances, half of them the chatbot's.
ASSISTANT_TURNS_PER_DIALOGUE = 5.0


class JudgeProtocol(ABC):
    name: ClassVar[str]
    description: ClassVar[str]
    default_max_tokens: ClassVar[int]
    Options: ClassVar[type[ProtocolOptions]] = ProtocolOptions
    judged_items: ClassVar[str] = "whole dialogues"
    chatbot_figures: ClassVar[tuple[MeanFigure, ...]] = ()
    figures_section: ClassVar[FiguresSection | None] = None

    def __init__(
        self, settings: JudgeSettings | None = None, options: Mapping[str, JsonValue] | None = None
    ) -> None:
        """Options are validated by the protocol's `Options` (strings are coerced: "true")."""
        self.settings = settings or JudgeSettings()
        self.options = self.Options.model_validate(dict(options or {}))
        self.examples: ChosenExamples | None = None

    @property
    def params(self) -> GenerationParams:
        return GenerationParams(
            max_tokens=self.settings.max_tokens or self.default_max_tokens,
            temperature=self.settings.temperature,
            reasoning_effort=self.settings.reasoning_effort,
        )

    @property
    def prompt_files(self) -> PromptFiles:
        """The prompt files of the package the protocol class is defined in, in the language
        its settings ask in (`judge/prompt_language.py`)."""
        return PromptFiles(type(self).__module__, self.settings.prompt_language)

    @classmethod
    def figures_in(cls, fields: Collection[str]) -> list[MeanFigure]:
        """The chatbot figures of judgments whose results hold these (flattened) fields: the
        declared ones whose field they hold. A protocol whose figures follow from its results
        says so here (MEDAL: one per issue its judgments hold)."""
        return [figure for figure in cls.chatbot_figures if figure.result_field in fields]

    @abstractmethod
    def file_hashes(self) -> dict[str, str]:
        """The sha256 of every prompt and data file the questions are built from, by name."""

    def judges(self, dialogue: Dialogue) -> bool:
        """Whether this protocol has anything to judge in the dialogue: judging selects only
        such dialogues, so `--limit` counts them and not others."""
        return True

    @abstractmethod
    def tasks(self, dialogues: Sequence[Dialogue]) -> list[Task]:
        """The judgments this protocol makes about these dialogues (none when nothing applies)."""

    def items_per_dialogue(self) -> float:
        """How many items a dialogue not generated yet will give, for `dialbench run --dry-run`."""
        return 1.0

    @abstractmethod
    def typical_questions(self, dialogue: Dialogue) -> list[Question]:
        """The questions of one item made of `dialogue` alone, whatever the protocol would
        select: what a dry run counts the calls and prompt tokens of an item by."""

    @abstractmethod
    def result(self, answers: Mapping[str, JsonValue]) -> Result:
        """One judgment's result from its schema-valid answers, keyed by question name."""

    def examples_wanted(self) -> dict[str, int]:
        """How many reviewed examples each question shows per language (`few_shot_option`):
        none where the protocol does not opt in, or its `few_shot` is 0."""
        return {}

    def example_answer(self, question: str, example: HumanExample) -> ExampleAnswer | None:
        """The humans' answer to the question in its schema, or None where their labels do not
        hold one: what a protocol that opts into `few_shot` says."""
        return None

    def example_questions(self, example: HumanExample) -> list[Question]:
        """The questions about the example's target where it is an item of this protocol's
        kind (none otherwise): their last message is the item as shown."""
        return []

    def use_examples(self, pool: Sequence[HumanExample]) -> ChosenExamples:
        """Choose, per language and question, the examples shown before every item of the
        dialogues of that language (`choose`); from now on their dialogues are held out."""
        wanted = self.examples_wanted()
        shots: dict[str, dict[str, list[Shot]]] = defaultdict(lambda: defaultdict(list))
        for example in pool:
            for question in self.example_questions(example):
                if question.name not in wanted:
                    continue
                answer = self.example_answer(question.name, example)
                if answer is not None:
                    shot = Shot.of(example, question.messages[-1], answer)
                    shots[example.language][question.name].append(shot)
        self.examples = ChosenExamples(
            wanted=wanted,
            shots={
                language: {name: choose(found, wanted[name]) for name, found in sorted(by.items())}
                for language, by in sorted(shots.items())
            },
        )
        return self.examples

    def held_out(self, dialogue: Dialogue) -> bool:
        """Whether a chosen example comes from the dialogue: it is not judged under them."""
        return self.examples is not None and dialogue.id in self.examples.dialogue_ids()

    def configured_options(self) -> dict[str, JsonValue]:
        """The options as a judgment's configuration holds them, with the ids of the examples
        shown under `few_shot`: other examples make other judgments."""
        options = self.options.configuration()
        if self.examples_wanted():
            ids: dict[str, JsonValue] = {
                language: {question: [*shown] for question, shown in by.items()}
                for language, by in self._chosen().ids().items()
            }
            options[EXAMPLES_KEY] = ids
        return options

    def examples_hashes(self) -> dict[str, str]:
        """The sha256 of the examples shown, beside the prompt files' (`file_hashes`)."""
        return {EXAMPLES_KEY: self._chosen().sha256()} if self.examples_wanted() else {}

    def _chosen(self) -> ChosenExamples:
        if self.examples is None:
            raise RuntimeError("few_shot: choose the examples first (use_examples)")
        return self.examples

    def shown_with_examples(self, questions: list[Question], language: str) -> list[Question]:
        """The questions with the chosen examples of the language between their instructions
        and the item, as prior user/assistant turns."""
        if self.examples is None:
            return questions
        return [
            question.model_copy(
                update={
                    "messages": (
                        *question.messages[:-1],
                        *self.examples.messages(language, question.name),
                        question.messages[-1],
                    )
                }
            )
            for question in questions
        ]


class DialogueProtocol(JudgeProtocol):
    """Judges each dialogue as a whole."""

    def tasks(self, dialogues: Sequence[Dialogue]) -> list[Task]:
        return [
            Task(
                target=Target(dialogue_id=d.id),
                questions=self.shown_with_examples(self.questions(d), d.language),
            )
            for d in dialogues
        ]

    def example_questions(self, example: HumanExample) -> list[Question]:
        return self.questions(example.dialogue) if example.target.kind == "dialogue" else []

    @abstractmethod
    def questions(self, dialogue: Dialogue) -> list[Question]:
        """What to ask about one dialogue."""

    def typical_questions(self, dialogue: Dialogue) -> list[Question]:
        return self.questions(dialogue)


class TurnProtocol(JudgeProtocol):
    """Judges chatbot turns, each in its dialogue: every one, or only each dialogue's last."""

    Options: ClassVar[type[ProtocolOptions]] = TurnOptions
    options: TurnOptions
    judged_items: ClassVar[str] = "chatbot turns"

    def judges(self, dialogue: Dialogue) -> bool:
        return any(turn.role == "assistant" for turn in dialogue.turns)

    def items_per_dialogue(self) -> float:
        return 1.0 if self.options.turns == "last" else ASSISTANT_TURNS_PER_DIALOGUE

    def tasks(self, dialogues: Sequence[Dialogue]) -> list[Task]:
        tasks = []
        for dialogue in dialogues:
            indices = [i for i, turn in enumerate(dialogue.turns) if turn.role == "assistant"]
            if self.options.turns == "last":
                indices = indices[-1:]
            tasks += [
                Task(
                    target=Target(dialogue_id=dialogue.id, turn_index=index),
                    questions=self.shown_with_examples(
                        self.questions(dialogue, index), dialogue.language
                    ),
                )
                for index in indices
            ]
        return tasks

    def example_questions(self, example: HumanExample) -> list[Question]:
        index, turns = example.target.turn_index, example.dialogue.turns
        if index is None or index >= len(turns):
            return []
        return self.questions(example.dialogue, index) if turns[index].role == "assistant" else []

    @abstractmethod
    def questions(self, dialogue: Dialogue, turn_index: int) -> list[Question]:
        """What to ask about one chatbot turn of a dialogue."""

    def typical_questions(self, dialogue: Dialogue) -> list[Question]:
        """About its middle chatbot turn: turns late in a dialogue show longer contexts."""
        turns = [i for i, turn in enumerate(dialogue.turns) if turn.role == "assistant"]
        return self.questions(dialogue, turns[len(turns) // 2])


class PairProtocol(JudgeProtocol):
    """Judges ordered pairs of dialogues; both orders are judged, so position bias shows."""

    judged_items: ClassVar[str] = "pairs of dialogues from one seed by different chatbots"

    def pairs(self, dialogues: Sequence[Dialogue]) -> Iterator[tuple[Dialogue, Dialogue]]:
        """By default, dialogues from the same seed, language and user with different chatbots,
        in both orders; a pair whose turns are identical is not worth a question."""
        groups: dict[str, list[Dialogue]] = {}
        for d in dialogues:
            if d.seed is not None:
                key = canonical_json(
                    [d.seed.model_dump(mode="json"), d.language, d.participants.user]
                )
                groups.setdefault(key, []).append(d)
        for group in groups.values():
            for first in group:
                for second in group:
                    if (
                        first.participants.assistant != second.participants.assistant
                        and first.turns != second.turns
                    ):
                        yield first, second

    def tasks(self, dialogues: Sequence[Dialogue]) -> list[Task]:
        return [
            Task(
                target=Target(dialogue_id=first.id, other_dialogue_id=second.id),
                questions=self.questions(first, second),
            )
            for first, second in self.pairs(dialogues)
        ]

    @abstractmethod
    def questions(self, first: Dialogue, second: Dialogue) -> list[Question]:
        """What to ask about two dialogues, shown in this order."""

    def typical_questions(self, dialogue: Dialogue) -> list[Question]:
        """The dialogue beside itself: two transcripts of its size."""
        return self.questions(dialogue, dialogue)
