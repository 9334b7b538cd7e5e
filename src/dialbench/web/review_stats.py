"""The organiser's view of a review, per language: how many of the judge's targets are reviewed,
and how often the reviewers agreed with its verdicts, over the reviews marked done."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from pydantic import JsonValue

from dialbench.schema import ALL_LANGUAGES, Annotation
from dialbench.web.review import JudgedDimension, kind_of, label_at
from dialbench.web.review_task import ReviewTask


@dataclass
class Agreement:
    """Of the verdicts a reviewer answered with a value (not skipped): those with a value to
    agree with (a yes/no, a whole score, a label) and how many kept it; for scores, the mean
    |reviewer - judge| (expected scores included)."""

    answered: int = 0
    agreed: int = 0
    scores: int = 0
    score_differences: float = 0.0

    @property
    def share(self) -> float | None:
        return self.agreed / self.answered if self.answered else None

    @property
    def mean_abs_difference(self) -> float | None:
        return self.score_differences / self.scores if self.scores else None

    def add(self, verdict: JudgedDimension, label: JsonValue) -> None:
        if label is None or kind_of(label) != verdict.kind:
            return
        if verdict.agreeable:
            self.answered += 1
            self.agreed += label == verdict.value
        if verdict.kind == "score" and verdict.value is not None:
            self.scores += 1
            self.score_differences += abs(float(label) - float(verdict.value))  # type: ignore[arg-type]


@dataclass
class LanguageReview:
    language: str
    targets: int = 0  # the judge's targets under review
    reviewed: set[str] = field(default_factory=set)  # those with a review marked done
    reviews: int = 0  # reviews marked done (a target can have several reviewers)
    agreement: Agreement = field(default_factory=Agreement)


@dataclass
class DimensionReview:
    dimension: str
    language: str
    agreement: Agreement = field(default_factory=Agreement)


def _last_all(language: str) -> tuple[bool, str]:
    return language == ALL_LANGUAGES, language


def review_figures(
    task: ReviewTask, annotations: Iterable[Annotation]
) -> tuple[list[LanguageReview], list[DimensionReview]]:
    """Progress and agreement per language (and over all, with several), and agreement per
    dimension and language, from the finished reviews among `annotations`."""
    languages: dict[str, LanguageReview] = {}
    dimensions: dict[tuple[str, str], DimensionReview] = {}
    for dialogue, judgments in task.judgments.items():
        for group in (task.languages[dialogue], ALL_LANGUAGES):
            languages.setdefault(group, LanguageReview(group)).targets += len(judgments)
    for annotation in annotations:
        judgment_id = annotation.review_of or ""
        reviewed = task.dialogue_of.get(judgment_id)
        if reviewed is None or not annotation.complete:
            continue
        _, verdicts = task.judged(reviewed)[judgment_id]
        for group in (task.languages[reviewed], ALL_LANGUAGES):
            figures = languages[group]
            figures.reviews += 1
            figures.reviewed.add(judgment_id)
            for verdict in verdicts:
                _, label = label_at(annotation.labels, verdict.path)
                figures.agreement.add(verdict, label)
                key = (verdict.dimension, group)
                dimensions.setdefault(key, DimensionReview(*key)).agreement.add(verdict, label)
    several = len(languages) > 2
    return (
        [languages[g] for g in sorted(languages, key=_last_all) if several or g != ALL_LANGUAGES],
        [
            dimensions[d, g]
            for d, g in sorted(dimensions, key=lambda k: (k[0], _last_all(k[1])))
            if several or g != ALL_LANGUAGES
        ],
    )
