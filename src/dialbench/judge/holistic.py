"""DiQAD's holistic dialogue quality: 0 / 1 / 2 over six dimensions, with the paper's decision
rules, the reason, and optionally the paper's three examples as few-shot turns."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache

from pydantic import Field, JsonValue

from dialbench.judge.data import load_data_file
from dialbench.judge.protocol import JudgeProtocol, Question, Result, Task, enum_of, hashes
from dialbench.judge.transcript import transcript
from dialbench.llm.base import JsonSchema, Message
from dialbench.prompts import load_prompt
from dialbench.schema import Dialogue, LanguageCode, Record, Target, Turn

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


class HolisticAnswer(Record):
    reason: str
    quality: int = Field(ge=0, le=2)


class HolisticExample(HolisticAnswer):
    language: LanguageCode
    turns: list[Turn] = Field(min_length=1)


class HolisticExamples(Record):
    examples: list[HolisticExample]
    sha256: str


@cache
def load_examples() -> HolisticExamples:
    return load_data_file(EXAMPLES_FILE, HolisticExamples)


class HolisticProtocol(JudgeProtocol):
    name = "holistic"
    description = "DiQAD: dialogue quality 0/1/2 over six dimensions, with the reason"
    default_max_tokens = 256

    def tasks(self, dialogue: Dialogue) -> list[Task]:
        instructions, shown = load_prompt("judge_holistic"), load_prompt("judge_dialogue")
        prompt_hashes = hashes(instructions, shown)

        def ask(language: str, turns: list[Turn]) -> Message:
            text = shown.format(language=language, transcript=transcript(turns))
            return Message(role="user", content=text)

        messages = [Message(role="system", content=instructions.format())]
        if self.settings.few_shot:
            examples = load_examples()
            prompt_hashes["holistic_examples"] = examples.sha256
            for example in examples.examples:
                answer = {"reason": example.reason, "quality": example.quality}
                messages += [
                    ask(example.language, example.turns),
                    Message(role="assistant", content=json.dumps(answer, ensure_ascii=False)),
                ]
        messages.append(ask(dialogue.language, dialogue.turns))
        question = Question(
            name=self.name, messages=tuple(messages), json_schema=SCHEMA, params=self.params
        )
        target = Target(dialogue_id=dialogue.id)
        return [Task(target=target, questions=[question], prompt_hashes=prompt_hashes)]

    def result(self, answers: Mapping[str, JsonValue]) -> Result:
        answer = HolisticAnswer.model_validate(answers[self.name])
        return {"quality": answer.quality, "reason": answer.reason.strip()}
