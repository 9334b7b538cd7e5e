"""Labels as the annotation page sends them, checked before they become `Annotation` records in
the shape the MEDAL issues judge answers in, so `metaeval` compares the two directly; and the
organiser's figures: progress, agreement between annotators, agreement with the gold labels."""

from __future__ import annotations

from collections.abc import Collection
from typing import Annotated

from fastapi.exceptions import RequestValidationError
from pydantic import ConfigDict, Field, JsonValue, ValidationError, field_validator

from dialbench.io.jsonl import json_value_problems, strict_json_loads
from dialbench.issue_labels import load_issue_labels
from dialbench.metaeval.agreement import AgreementRow
from dialbench.schema import Annotation, Annotator, Record, Target, utc_now
from dialbench.store import RunStore
from dialbench.web.annotators import AssignmentSettings, assigned_items, gold_items

Score = Annotated[int, Field(ge=1, le=5)]
MAX_COMMENT = 5000
USER_HUMANLIKE = "user_humanlike"


class LabelsIn(Record):
    """One annotator's labels of one dialogue, as saved on every change: an issue not ticked is
    absent, so the checkboxes alone are a complete answer; scores may come later. Strict: a
    JSON `true` is no score and `"3"` no 3."""

    model_config = ConfigDict(strict=True)

    issues: dict[str, bool] = Field(default_factory=dict)
    overall: Score | None = None
    user_humanlike: Score | None = None
    comment: str = Field(default="", max_length=MAX_COMMENT)

    @field_validator("issues")
    @classmethod
    def _known_issues(cls, issues: dict[str, bool]) -> dict[str, bool]:
        known = [label.key for label in load_issue_labels().issues]
        unknown = sorted(set(issues) - set(known))
        if unknown:
            raise ValueError(f"unknown issue {unknown[0]!r} (known: {', '.join(known)})")
        return issues

    def annotation(self, annotator: Annotator, dialogue_id: str) -> Annotation:
        labels: dict[str, JsonValue] = {
            "issues": {
                label.key: self.issues.get(label.key, False) for label in load_issue_labels().issues
            }
        }
        for key, score in (("overall", self.overall), (USER_HUMANLIKE, self.user_humanlike)):
            if score is not None:
                labels[key] = score
        return Annotation(
            annotator_id=annotator.name,
            target=Target(dialogue_id=dialogue_id),
            labels=labels,
            comment=self.comment or None,
            created_at=utc_now(),
        )


def labels_sent(body: bytes) -> LabelsIn:
    """The labels of a request body, or a 422 naming each bad field: a key given twice (which
    `json.loads` would settle silently on the last value) is one of them."""
    try:
        value = strict_json_loads(body.decode("utf-8"))
    except ValueError as bad:  # UnicodeDecodeError is one
        raise RequestValidationError(
            [{"loc": ("request body",), "msg": f"not JSON ({bad})", "type": "json_invalid"}]
        ) from None
    problems = [
        {"loc": tuple(field.split(".")), "msg": problem, "type": "value_error"}
        for field, problem in json_value_problems(value)
    ]
    if problems:
        raise RequestValidationError(problems)
    try:
        return LabelsIn.model_validate(value)
    except ValidationError as invalid:
        raise RequestValidationError(invalid.errors()) from None


def _score(value: JsonValue) -> int | None:
    return (
        value
        if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 5
        else None
    )


def labels_in(annotation: Annotation | None) -> LabelsIn:
    """What the page shows for a stored annotation (nothing ticked when there is none); labels
    imported from elsewhere show what fits the page's scales."""
    if annotation is None:
        return LabelsIn()
    issues = annotation.labels.get("issues")
    known = {label.key for label in load_issue_labels().issues}
    return LabelsIn(
        issues={k: True for k, v in issues.items() if v is True and k in known}
        if isinstance(issues, dict)
        else {},
        overall=_score(annotation.labels.get("overall")),
        user_humanlike=_score(annotation.labels.get(USER_HUMANLIKE)),
        comment=(annotation.comment or "")[:MAX_COMMENT],
    )


def is_complete(annotation: Annotation) -> bool:
    """Done once both scores are given: the checkboxes may rightly all stay empty."""
    return "overall" in annotation.labels and USER_HUMANLIKE in annotation.labels


class Progress(Record):
    annotator: str
    benchmark: str
    languages: list[str]
    done: int
    assigned: int
    gold_items: int = 0
    gold_issue_accuracy: float | None = None
    gold_overall_mean_abs_difference: float | None = None


def _own_annotations(store: RunStore, annotator: Annotator) -> dict[str, Annotation]:
    return {
        a.target.dialogue_id: a
        for a in store.records(Annotation, annotator_id=annotator.name)
        if a.target.kind == "dialogue"
    }


def progress(
    store: RunStore,
    annotator: Annotator,
    settings: AssignmentSettings,
    assigned: Collection[str] | None = None,
) -> Progress:
    """How far an annotator is through their dialogues (`assigned`, when already known), and
    how close to the gold labels on the gold items done."""
    if assigned is None:
        assigned = [item.dialogue_id for item in assigned_items(store, annotator, settings)]
    own = _own_annotations(store, annotator)
    found = Progress(
        annotator=annotator.name,
        benchmark=annotator.benchmark,
        languages=annotator.languages,
        done=sum(1 for d in assigned if d in own and is_complete(own[d])),
        assigned=len(assigned),
    )
    if settings.gold_annotator is None or annotator.name == settings.gold_annotator:
        return found
    gold = {
        a.target.dialogue_id: a
        for a in store.records(Annotation, annotator_id=settings.gold_annotator)
    }
    shared = sorted(gold_items(store, settings) & set(own))
    matches, checked, differences = 0, 0, []
    for dialogue_id in shared:
        mine, answer = labels_in(own[dialogue_id]), labels_in(gold[dialogue_id])
        for label in load_issue_labels().issues:
            checked += 1
            matches += mine.issues.get(label.key, False) == answer.issues.get(label.key, False)
        if mine.overall is not None and answer.overall is not None:
            differences.append(abs(mine.overall - answer.overall))
    return found.model_copy(
        update={
            "gold_items": len(shared),
            "gold_issue_accuracy": matches / checked if checked else None,
            "gold_overall_mean_abs_difference": (
                sum(differences) / len(differences) if differences else None
            ),
        }
    )


def agreement_rows(store: RunStore) -> list[AgreementRow]:
    """Krippendorff's alpha and kappa between annotators, per dimension and language, from the
    meta-evaluation's own code; none until two annotators share an item."""
    from dialbench.io.ratings import human_ratings
    from dialbench.metaeval.evaluate import meta_evaluate

    ratings = human_ratings(store)
    return meta_evaluate(ratings).agreement if ratings else []
