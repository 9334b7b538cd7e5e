"""MEDAL's issue labels and their definitions, from `issue_labels.yaml`: the one file that LLM
judges and human annotators both read, so both are asked the same words."""

from __future__ import annotations

from functools import cache

from pydantic import Field

from dialbench.schema import Record
from dialbench.yaml_records import load_yaml_record

LABELS_FILE = "issue_labels.yaml"
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


@cache
def load_issue_labels() -> IssueLabels:
    return load_yaml_record("dialbench", LABELS_FILE, IssueLabels)
