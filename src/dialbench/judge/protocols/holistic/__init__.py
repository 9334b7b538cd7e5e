"""DiQAD's holistic dialogue quality: 0 / 1 / 2 over six dimensions, with the paper's decision
rules, the reason, and optionally the paper's three examples as few-shot turns. With
`scoring=expected` the quality is the expectation over 0/1/2's token probabilities where the judge
wrote it, after its reason."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import ClassVar

from pydantic import Field, JsonValue

from dialbench.judge.numbered_transcript import numbered_transcript
from dialbench.judge.prompt_language import SHARED_PROMPTS
from dialbench.judge.protocol import (
    DialogueProtocol,
    FewShotExamples,
    ProtocolOptions,
    Question,
    Result,
    Scoring,
    enum_of,
    scored_fields,
    scoring_option,
)
from dialbench.judge.protocol_figures import FiguresSection, MeanFigure
from dialbench.llm.base import JsonSchema, Message
from dialbench.llm.expected import ScoredField
from dialbench.schema import Dialogue, LanguageCode, Record, Turn
from dialbench.yaml_records import load_yaml_record

QUALITY_LEVELS = [0, 1, 2]
REASON_MAX_CHARS = 400
EXAMPLES_FILE = "holistic_examples.yaml"
SCHEMA: JsonSchema = {
    "type": "object",
    "properties": {
        "reason": {"type": "string", "maxLength": REASON_MAX_CHARS},
        "quality": enum_of(QUALITY_LEVELS),
    },
    "required": ["reason", "quality"],
    "additionalProperties": False,
}


SCORED = ScoredField(name="quality", values=QUALITY_LEVELS)


class HolisticOptions(ProtocolOptions):
    few_shot: bool = Field(default=False, description="DiQAD's three examples as turns")
    scoring: Scoring = scoring_option()


class HolisticAnswer(Record):
    reason: str
    quality: int | float = Field(ge=0, le=2, description="a float under scoring=expected")


class HolisticExample(HolisticAnswer):
    quality: int = Field(ge=0, le=2)
    language: LanguageCode
    turns: list[Turn] = Field(min_length=1)


def load_examples() -> FewShotExamples[HolisticExample]:
    return load_yaml_record(__name__, EXAMPLES_FILE, FewShotExamples[HolisticExample])


class HolisticProtocol(DialogueProtocol):
    name = "holistic"
    description = "DiQAD: dialogue quality 0/1/2 over six dimensions, with the reason"
    default_max_tokens = 256
    Options: ClassVar[type[ProtocolOptions]] = HolisticOptions
    options: HolisticOptions
    chatbot_figures = (MeanFigure.score("quality", QUALITY_LEVELS),)
    figures_section = FiguresSection(
        title="Holistic quality per chatbot and language",
        note="DiQAD's mean quality 0-2 over the dialogues judged ok.",
        table="holistic_means",
        caption="Mean quality (0-2)",
    )

    def file_hashes(self) -> dict[str, str]:
        prompts = self.prompt_files
        files = prompts.hashes("judge_holistic") | prompts.hashes(
            "judge_dialogue", package=SHARED_PROMPTS
        )
        if self.options.few_shot:
            files["holistic_examples"] = load_examples().sha256
        return files

    def questions(self, dialogue: Dialogue) -> list[Question]:
        instructions = self.prompt_files.load("judge_holistic", dialogue.language)
        shown = self.prompt_files.load("judge_dialogue", dialogue.language, SHARED_PROMPTS)

        def ask(language: str, turns: list[Turn]) -> Message:
            text = shown.format(language=language, transcript=numbered_transcript(turns))
            return Message(role="user", content=text)

        messages = [Message(role="system", content=instructions.format())]
        if self.options.few_shot:
            for example in load_examples().examples:
                answer = {"reason": example.reason, "quality": example.quality}
                messages += [
                    ask(example.language, example.turns),
                    Message(role="assistant", content=json.dumps(answer, ensure_ascii=False)),
                ]
        messages.append(ask(dialogue.language, dialogue.turns))
        return [
            Question(
                name=self.name,
                messages=tuple(messages),
                json_schema=SCHEMA,
                params=self.params,
                scored=scored_fields(self.options.scoring, SCORED),
            )
        ]

    def result(self, answers: Mapping[str, JsonValue]) -> Result:
        answer = HolisticAnswer.model_validate(answers[self.name])
        return {"quality": answer.quality, "reason": answer.reason.strip()}
