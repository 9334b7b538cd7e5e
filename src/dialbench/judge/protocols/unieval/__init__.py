"""BotChat UniEval: is this conversation AI-involved, and if so, from which utterance on?

The judge reads the dialogue as chats `A: ... <chat_end>` numbered from 1 with the paper's
prompt (Appendix B), the answer asked for as JSON: `choice` Yes/No, `index` (1-based, within the
dialogue, only with Yes) and the `reason`. An answer that does not fit (an index with No, none or
one out of range with Yes) fails the schema and is re-asked, then left unscored: never guessed.
`--option examples=true` adds two in-context examples as earlier turns. Tool turns are left out:
the paper's layout has two speakers, the index counts utterances, and a tool call shown among
them would tell the judge a machine was involved.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import ClassVar, Literal

from pydantic import Field, JsonValue, model_validator

from dialbench.judge.protocol import (
    DialogueProtocol,
    FewShotExamples,
    ProtocolOptions,
    Question,
    Result,
    Task,
    enum_of,
)
from dialbench.judge.protocol_figures import MeanFigure
from dialbench.llm.base import JsonSchema, Message
from dialbench.schema import Dialogue, Record, speaker_turns
from dialbench.yaml_records import load_yaml_record

REASON_MAX_CHARS = 600
EXAMPLES_FILE = "unieval_examples.yaml"
SPEAKERS = ("A", "B")


def chats(utterances: Sequence[str]) -> str:
    """The paper's layout: speakers A and B alternate, each chat ends with <chat_end>."""
    return "\n".join(f"{SPEAKERS[i % 2]}: {text} <chat_end>" for i, text in enumerate(utterances))


def answer_schema(utterances: int) -> JsonSchema:
    """Yes with an index in 1..utterances, or No without one; the reason in both."""
    reason: JsonSchema = {"type": "string", "maxLength": REASON_MAX_CHARS}

    def branch(choice: str, index: JsonSchema) -> JsonSchema:
        return {
            "type": "object",
            "properties": {"choice": {"const": choice}, "index": index, "reason": reason},
            "required": ["choice", "index", "reason"],
            "additionalProperties": False,
        }

    return {
        "anyOf": [
            branch("No", {"type": "null"}),
            branch("Yes", enum_of(range(1, utterances + 1))),
        ]
    }


class UniEvalOptions(ProtocolOptions):
    examples: bool = Field(default=False, description="two in-context examples as earlier turns")
    include: Literal["selfchat", "all"] = Field(
        default="selfchat",
        description="judge only self-chats, or every dialogue (human ones as a baseline)",
    )


class UniEvalAnswer(Record):
    choice: Literal["Yes", "No"]
    index: int | None = Field(ge=1)
    reason: str

    @model_validator(mode="after")
    def _index_with_yes_only(self) -> UniEvalAnswer:
        if (self.choice == "Yes") != (self.index is not None):
            raise ValueError("an index goes with Choice: Yes, and only with it")
        return self


class UniEvalExample(UniEvalAnswer):
    utterances: list[str] = Field(min_length=1)


def load_examples() -> FewShotExamples[UniEvalExample]:
    return load_yaml_record(__name__, EXAMPLES_FILE, FewShotExamples[UniEvalExample])


class UniEvalProtocol(DialogueProtocol):
    name = "unieval"
    description = "BotChat UniEval: is the conversation AI-involved, and from which utterance"
    default_max_tokens = 256
    Options: ClassVar[type[ProtocolOptions]] = UniEvalOptions
    options: UniEvalOptions
    judged_items: ClassVar[str] = "finished self-chats (with include=all: every dialogue)"
    # the pass rate at the dialogue's full length; its report section shows it (human_rate)
    chatbot_figures = (MeanFigure(dimension="judged_human", of="ai_involved", complement=True),)

    def file_hashes(self) -> dict[str, str]:
        files = self.prompt_files.hashes("judge_unieval")
        if self.options.examples:
            files["unieval_examples"] = load_examples().sha256
        return files

    def judges(self, dialogue: Dialogue) -> bool:
        """Finished self-chats (a failed generation is redone, not judged), or every dialogue
        with `include=all`."""
        finished = dialogue.source == "selfchat" and dialogue.end_reason != "error"
        return self.options.include == "all" or finished

    def tasks(self, dialogues: Sequence[Dialogue]) -> list[Task]:
        return super().tasks([d for d in dialogues if self.judges(d)])

    def questions(self, dialogue: Dialogue) -> list[Question]:
        utterances = [turn.text for turn in speaker_turns(dialogue.turns)]
        prompt = self.prompt_files.load("judge_unieval", dialogue.language)
        messages = [Message(role="system", content=prompt.format(utterances=str(len(utterances))))]
        if self.options.examples:
            for example in load_examples().examples:
                answer = {
                    "choice": example.choice,
                    "index": example.index,
                    "reason": example.reason,
                }
                messages += [
                    Message(role="user", content=chats(example.utterances)),
                    Message(role="assistant", content=json.dumps(answer)),
                ]
        messages.append(Message(role="user", content=chats(utterances)))
        return [
            Question(
                name=self.name,
                messages=tuple(messages),
                json_schema=answer_schema(len(utterances)),
                params=self.params,
            )
        ]

    def result(self, answers: Mapping[str, JsonValue]) -> Result:
        answer = UniEvalAnswer.model_validate(answers[self.name])
        return {
            "ai_involved": answer.choice == "Yes",
            "first_ai_index": answer.index,
            "reason": answer.reason.strip(),
        }
