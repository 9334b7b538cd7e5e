"""A rating protocol as a plugin writes one: this package, its prompt file beside it, and the
class, whose chatbot figures are declared as data; registered for a test by one line."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import JsonValue

from dialbench.judge.numbered_transcript import numbered_transcript
from dialbench.judge.protocol import DialogueProtocol, Question, Result, enum_of
from dialbench.judge.protocol_figures import FiguresSection, MeanFigure
from dialbench.llm.base import JsonSchema, Message
from dialbench.schema import Dialogue, Record

SCORES = [1, 2, 3, 4, 5]
SCHEMA: JsonSchema = {
    "type": "object",
    "properties": {"politeness": enum_of(SCORES), "rude": {"type": "boolean"}},
    "required": ["politeness", "rude"],
    "additionalProperties": False,
}


class PolitenessAnswer(Record):
    politeness: int
    rude: bool


class PolitenessProtocol(DialogueProtocol):
    """How polite the chatbot is, 1-5, and whether it was rude at all."""

    name = "politeness"
    description = "how polite the chatbot is (1-5), and whether any turn is rude"
    default_max_tokens = 32
    chatbot_figures = (
        MeanFigure.score("politeness", SCORES),
        MeanFigure(dimension="rude", better="lower"),
    )
    figures_section = FiguresSection(
        title="Politeness per chatbot and language",
        note="The mean politeness 1-5, and the share of dialogues with a rude turn.",
        table="politeness_means",
        caption="Politeness and rudeness",
    )

    def file_hashes(self) -> dict[str, str]:
        return self.prompt_files.hashes("judge_politeness")

    def questions(self, dialogue: Dialogue) -> list[Question]:
        instructions = self.prompt_files.load("judge_politeness", dialogue.language)
        messages = (
            Message(role="system", content=instructions.format()),
            Message(role="user", content=numbered_transcript(dialogue.turns)),
        )
        return [Question(name=self.name, messages=messages, json_schema=SCHEMA, params=self.params)]

    def result(self, answers: Mapping[str, JsonValue]) -> Result:
        answer = PolitenessAnswer.model_validate(answers[self.name])
        return {"politeness": answer.politeness, "rude": answer.rude}
