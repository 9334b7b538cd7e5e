"""Turn-level submetrics, the LLM baseline of the multilingual submetrics paper (§4.1.3):
understandability from the response alone, sensibleness from the response given its context,
each asked on its own from 1 to 5 and combined into one judgment per chatbot turn. With
`scoring=expected` each score is the expectation over the five scores' token probabilities;
`dimensions` asks only one of the two, at half the calls; `few_shot=N` shows each question N
humans' scores of that dimension on other chatbot turns of the dialogue's language first."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar, Literal

from pydantic import Field, JsonValue

from dialbench.judge.few_shot import ExampleAnswer, HumanExample, nearest
from dialbench.judge.numbered_transcript import numbered_transcript
from dialbench.judge.protocol import (
    ProtocolOptions,
    Question,
    Result,
    Scoring,
    TurnOptions,
    TurnProtocol,
    added_option,
    enum_of,
    few_shot_option,
    scored_fields,
    scoring_option,
)
from dialbench.judge.protocol_figures import FiguresSection, MeanFigure
from dialbench.llm.base import JsonSchema, Message
from dialbench.llm.expected import ScoredField
from dialbench.prompts import Prompt
from dialbench.schema import Dialogue, Record

SCORES = [1, 2, 3, 4, 5]
SCHEMA: JsonSchema = {
    "type": "object",
    "properties": {"score": enum_of(SCORES)},
    "required": ["score"],
    "additionalProperties": False,
}
DIMENSIONS = ("understandability", "sensibleness")
SCORED = ScoredField(name="score", values=SCORES)


class SubmetricsOptions(TurnOptions):
    scoring: Scoring = scoring_option()
    dimensions: Literal["both", "understandability", "sensibleness"] = added_option(
        "both", "ask both submetrics, or only one (half the calls)"
    )
    few_shot: int = few_shot_option()


class ScoreAnswer(Record):
    score: int | float = Field(ge=1, le=5, description="a float under scoring=expected")


PROMPTS = ("judge_response", "judge_context_response", *(f"judge_{d}" for d in DIMENSIONS))


class SubmetricsProtocol(TurnProtocol):
    name = "submetrics"
    description = "turn level: understandability (response alone), sensibleness (in context), 1-5"
    default_max_tokens = 16
    Options: ClassVar[type[ProtocolOptions]] = SubmetricsOptions
    options: SubmetricsOptions
    chatbot_figures = tuple(MeanFigure.score(dimension, SCORES) for dimension in DIMENSIONS)
    figures_section = FiguresSection(
        title="Turn-level submetrics per chatbot and language",
        note="Mean understandability (the response alone) and sensibleness (the response in "
        "its context), 1-5, over the chatbot turns judged ok; a turn is an item, its "
        "dialogue's seed its unit.",
        table="submetric_means",
        caption="Means over chatbot turns",
        count="turns",
    )

    @property
    def dimensions(self) -> tuple[str, ...]:
        wanted = self.options.dimensions
        return DIMENSIONS if wanted == "both" else (wanted,)

    def _prompts(self, language: str) -> tuple[Prompt, Prompt, dict[str, Prompt]]:
        """The response shown alone, shown in context, and each dimension's instructions."""
        load = self.prompt_files.load
        instructions = {name: load(f"judge_{name}", language) for name in DIMENSIONS}
        return (
            load("judge_response", language),
            load("judge_context_response", language),
            instructions,
        )

    def file_hashes(self) -> dict[str, str]:
        return self.prompt_files.hashes(*PROMPTS)

    def questions(self, dialogue: Dialogue, turn_index: int) -> list[Question]:
        alone, in_context, instructions = self._prompts(dialogue.language)
        response = dialogue.turns[turn_index].text
        context = numbered_transcript(dialogue.turns[:turn_index]) or "(the chatbot speaks first)"
        shown = {
            "understandability": alone.format(response=response),
            "sensibleness": in_context.format(context=context, response=response),
        }
        return [
            Question(
                name=name,
                messages=(
                    Message(role="system", content=instructions[name].format()),
                    Message(role="user", content=shown[name]),
                ),
                json_schema=SCHEMA,
                params=self.params,
                scored=scored_fields(self.options.scoring, SCORED),
            )
            for name in self.dimensions
        ]

    def result(self, answers: Mapping[str, JsonValue]) -> Result:
        return {name: ScoreAnswer.model_validate(answers[name]).score for name in self.dimensions}

    def examples_wanted(self) -> dict[str, int]:
        return (
            dict.fromkeys(self.dimensions, self.options.few_shot) if self.options.few_shot else {}
        )

    def example_answer(self, question: str, example: HumanExample) -> ExampleAnswer | None:
        """The humans' score of the dimension the question asks."""
        if (median := example.labels.get(question)) is None:
            return None
        score = nearest(median, SCORES)
        return ExampleAnswer(answer={"score": score}, value=score)
