"""Turn-level submetrics, the LLM baseline of the multilingual submetrics paper (§4.1.3):
understandability from the response alone, sensibleness from the response given its context,
each asked on its own from 1 to 5 and combined into one judgment per chatbot turn."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import Field, JsonValue

from dialbench.judge.protocol import JudgeProtocol, Question, Result, Task, enum_of, hashes
from dialbench.judge.transcript import transcript
from dialbench.llm.base import JsonSchema, Message
from dialbench.prompts import load_prompt
from dialbench.schema import Dialogue, Record, Target

SCORES = [1, 2, 3, 4, 5]
SCHEMA: JsonSchema = {
    "type": "object",
    "properties": {"score": enum_of(SCORES)},
    "required": ["score"],
    "additionalProperties": False,
}
DIMENSIONS = ("understandability", "sensibleness")


class ScoreAnswer(Record):
    score: int = Field(ge=1, le=5)


class SubmetricsProtocol(JudgeProtocol):
    name = "submetrics"
    description = "turn level: understandability (response alone), sensibleness (in context), 1-5"
    default_max_tokens = 16

    def tasks(self, dialogue: Dialogue) -> list[Task]:
        alone, in_context = load_prompt("judge_response"), load_prompt("judge_context_response")
        instructions = {name: load_prompt(f"judge_{name}") for name in DIMENSIONS}
        prompt_hashes = hashes(alone, in_context, *instructions.values())
        tasks = []
        for index, turn in enumerate(dialogue.turns):
            if turn.role != "assistant":
                continue
            context = transcript(dialogue.turns[:index]) or "(the chatbot speaks first)"
            shown = {
                "understandability": alone.format(response=turn.text),
                "sensibleness": in_context.format(context=context, response=turn.text),
            }
            questions = [
                Question(
                    name=name,
                    messages=(
                        Message(role="system", content=instructions[name].format()),
                        Message(role="user", content=shown[name]),
                    ),
                    json_schema=SCHEMA,
                    params=self.params,
                )
                for name in DIMENSIONS
            ]
            target = Target(dialogue_id=dialogue.id, turn_index=index)
            tasks.append(Task(target=target, questions=questions, prompt_hashes=prompt_hashes))
        return tasks

    def result(self, answers: Mapping[str, JsonValue]) -> Result:
        return {name: ScoreAnswer.model_validate(answers[name]).score for name in DIMENSIONS}
