"""MEDAL's issue labels and their definitions, from `issue_labels.yaml`: the one file that LLM
judges and human annotators both read, so both are asked the same words; and, from
`tool_issue_labels.yaml`, those of a chatbot's use of its tools, asked where a protocol opts in."""

from __future__ import annotations

from functools import cache

from pydantic import Field

from dialbench.schema import Record
from dialbench.yaml_records import load_yaml_record

LABELS_FILE = "issue_labels.yaml"
TOOL_LABELS_FILE = "tool_issue_labels.yaml"
# Issues as dimensions of ratings, flattened from a judgment's `{"issues": {...}}`: `issues.unsafe`.
ISSUES_PREFIX = "issues."


class IssueLabel(Record):
    key: str = Field(pattern=r"^[a-z_]+$")
    title: str
    definition: str
    optional: bool = False


class OverallScale(Record):
    key: str
    title: str
    definition: str
    scale: list[int] = Field(min_length=2)


class IssueLabels(Record):
    """Every label with its definition, and the sha256 of the file for provenance."""

    issues: list[IssueLabel] = Field(min_length=1)
    overall: OverallScale
    sha256: str = ""

    def selected(self, *, include_optional: bool) -> list[IssueLabel]:
        return [label for label in self.issues if include_optional or not label.optional]


class ToolIssueLabels(Record):
    """Labels of how a chatbot used what its tools returned: asked only about dialogues with
    tool turns, where a protocol opts in."""

    issues: list[IssueLabel] = Field(min_length=1)
    sha256: str = ""


@cache
def load_issue_labels() -> IssueLabels:
    return load_yaml_record("dialbench", LABELS_FILE, IssueLabels)


def load_tool_issue_labels() -> ToolIssueLabels:
    return load_yaml_record("dialbench", TOOL_LABELS_FILE, ToolIssueLabels)
