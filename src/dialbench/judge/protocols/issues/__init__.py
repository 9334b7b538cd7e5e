"""MEDAL's multidimensional chatbot evaluation: binary issues with comments, and overall 1-5.

The labels and their definitions come from `issue_labels.yaml`, the file human annotators read.
Comments are kept only for issues marked present: the comment explains a label, it is not one.
With `tool_results=true`, a dialogue that holds tool turns is also asked the labels of
`tool_issue_labels.yaml` (a reply that contradicts or ignores what its tool returned); a
dialogue without them is asked exactly what it is asked by default. With `few_shot=N`, N
dialogues of the dialogue's language the humans labelled (every issue asked, and overall) are
shown first with their labels, and no comments (a human's comment is not one per issue).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import ClassVar

from pydantic import Field, JsonValue

from dialbench.issue_labels import (
    ISSUES_PREFIX,
    LABELS_FILE,
    TOOL_LABELS_FILE,
    IssueLabel,
    IssueLabels,
    ToolIssueLabels,
    load_issue_labels,
    load_tool_issue_labels,
)
from dialbench.judge.few_shot import ExampleAnswer, HumanExample, nearest
from dialbench.judge.numbered_transcript import numbered_transcript
from dialbench.judge.prompt_language import SHARED_PROMPTS
from dialbench.judge.protocol import (
    DialogueProtocol,
    ProtocolOptions,
    Question,
    Result,
    added_option,
    enum_of,
    few_shot_option,
)
from dialbench.judge.protocol_figures import MeanFigure
from dialbench.llm.base import JsonSchema, Message
from dialbench.schema import Dialogue, Record
from dialbench.yaml_records import load_yaml_record

COMMENT_MAX_CHARS = 300


class IssuesOptions(ProtocolOptions):
    other: bool = Field(default=False, description="also ask for the optional 'other' issue")
    tool_results: bool = added_option(
        False,
        "on dialogues with tool turns, also ask whether a chatbot turn contradicts or ignores "
        "what a tool returned",
    )
    few_shot: int = few_shot_option()


class IssuesAnswer(Record):
    issues: dict[str, bool]
    comments: dict[str, str]
    overall: int


def labels_in(language: str | None) -> IssueLabels:
    """MEDAL's labels, or their translation beside this protocol's prompts (same keys)."""
    if language is None:
        return load_issue_labels()
    return load_yaml_record(__name__, f"{language}/{LABELS_FILE}", IssueLabels)


def tool_labels_in(language: str | None) -> ToolIssueLabels:
    if language is None:
        return load_tool_issue_labels()
    return load_yaml_record(__name__, f"{language}/{TOOL_LABELS_FILE}", ToolIssueLabels)


class IssuesProtocol(DialogueProtocol):
    name = "issues"
    description = "MEDAL: 8 binary issues of the chatbot's turns (+ comments) and overall 1-5"
    default_max_tokens = 512
    Options: ClassVar[type[ProtocolOptions]] = IssuesOptions
    options: IssuesOptions

    @classmethod
    def figures_in(cls, fields: Collection[str]) -> list[MeanFigure]:
        """The share of dialogues with each issue the judgments hold (fewer is better), and
        the mean overall score; the report's issues section shows them."""
        issues = [field for field in fields if field.startswith(ISSUES_PREFIX)]
        overall = MeanFigure.score("overall", load_issue_labels().overall.scale)
        return [
            *(MeanFigure(dimension=issue, better="lower") for issue in issues),
            *([overall] if "overall" in fields else []),
        ]

    def labels(self, dialogue: Dialogue) -> list[IssueLabel]:
        """The labels asked about this dialogue: the tool labels only where opted in and only
        about a dialogue with tool turns."""
        labels = load_issue_labels().selected(include_optional=self.options.other)
        if self.options.tool_results and any(turn.tool is not None for turn in dialogue.turns):
            labels += load_tool_issue_labels().issues
        return labels

    def file_hashes(self) -> dict[str, str]:
        prompts = self.prompt_files
        files = prompts.hashes("judge_issues") | prompts.hashes(
            "judge_dialogue", package=SHARED_PROMPTS
        )
        for language in (None, *prompts.languages()):
            suffix = "" if language is None else f".{language}"
            files[f"issue_labels{suffix}"] = labels_in(language).sha256
            if self.options.tool_results:
                files[f"tool_issue_labels{suffix}"] = tool_labels_in(language).sha256
        return files

    def schema(self, labels: list[IssueLabel]) -> JsonSchema:
        keys = [label.key for label in labels]
        comment = {"type": "string", "maxLength": COMMENT_MAX_CHARS}
        return {
            "type": "object",
            "properties": {
                "issues": {
                    "type": "object",
                    "properties": {key: {"type": "boolean"} for key in keys},
                    "required": keys,
                    "additionalProperties": False,
                },
                "comments": {
                    "type": "object",
                    "properties": dict.fromkeys(keys, comment),
                    "additionalProperties": False,
                },
                "overall": enum_of(load_issue_labels().overall.scale),
            },
            "required": ["issues", "comments", "overall"],
            "additionalProperties": False,
        }

    def questions(self, dialogue: Dialogue) -> list[Question]:
        prompts, language = self.prompt_files, self.prompt_files.language(dialogue.language)
        instructions = prompts.load("judge_issues", dialogue.language)
        shown = prompts.load("judge_dialogue", dialogue.language, SHARED_PROMPTS)
        overall = labels_in(language).overall
        shown_labels = [*labels_in(language).issues, *tool_labels_in(language).issues]
        definitions = {label.key: label.definition for label in shown_labels}
        labels = self.labels(dialogue)
        system = instructions.format(
            labels="\n".join(f"- {label.key}: {definitions[label.key]}" for label in labels),
            overall=overall.definition,
            issue_keys=", ".join(f'"{label.key}": true|false' for label in labels),
            scale="|".join(str(score) for score in overall.scale),
        )
        user = shown.format(
            language=dialogue.language, transcript=numbered_transcript(dialogue.turns)
        )
        return [
            Question(
                name=self.name,
                messages=(
                    Message(role="system", content=system),
                    Message(role="user", content=user),
                ),
                json_schema=self.schema(labels),
                params=self.params,
            )
        ]

    def result(self, answers: Mapping[str, JsonValue]) -> Result:
        answer = IssuesAnswer.model_validate(answers[self.name])
        comments: dict[str, JsonValue] = {
            key: text.strip()
            for key, text in answer.comments.items()
            if answer.issues.get(key) and text.strip()
        }
        issues: dict[str, JsonValue] = dict(answer.issues)
        return {"issues": issues, "comments": comments, "overall": answer.overall}

    def examples_wanted(self) -> dict[str, int]:
        return {self.name: self.options.few_shot} if self.options.few_shot else {}

    def example_answer(self, question: str, example: HumanExample) -> ExampleAnswer | None:
        """The humans' issues (a median of at least a half is present) and overall score,
        where they gave every issue asked of the dialogue and the overall score."""
        labels, overall = example.labels, load_issue_labels().overall
        flags = [ISSUES_PREFIX + label.key for label in self.labels(example.dialogue)]
        if overall.key not in labels or any(flag not in labels for flag in flags):
            return None
        issues = {flag.removeprefix(ISSUES_PREFIX): labels[flag] >= 0.5 for flag in flags}
        answer: dict[str, JsonValue] = {
            "issues": dict(issues),
            "comments": {},
            "overall": nearest(labels[overall.key], overall.scale),
        }
        return ExampleAnswer(answer=answer, value=float(any(issues.values())))
