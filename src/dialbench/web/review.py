"""A reviewer's answers to a judge's verdicts, checked and turned into the `Annotation` each
judgment's review is stored as: labels of the judge's own dimensions in the shape of its result,
so `metaeval` pairs them with the judgment as it pairs any human label. Agreed, a verdict keeps
the judge's value; disagreed, a yes/no is flipped; corrected, it is the value given; skipped, it
is null (reviewed, no label: no rating reads it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Literal

from pydantic import ConfigDict, Field, JsonValue

from dialbench.ratings import leaves
from dialbench.schema import Annotation, Judgment, Record, utc_now

DimensionKind = Literal["yes/no", "score", "label"]
Correction = Annotated[int, Field(ge=0, le=9)]  # a digit key
Action = Literal["agree", "disagree", "skip"] | bool | Correction


class ReviewRefused(ValueError):
    """An answer that does not fit its verdict, with where it was given (`reviews.J.D`)."""

    def __init__(self, location: tuple[str, ...], message: str) -> None:
        super().__init__(f"{'.'.join(location)}: {message}")
        self.location = location
        self.message = message


class JudgedDimension(Record):
    """One dimension of a judgment: where it sits in the result, what kind of value it holds,
    the judge's value (None: it gave none, the judgment is unscored) and its comment on it."""

    path: tuple[str, ...]
    kind: DimensionKind
    value: bool | int | float | str | None = None
    comment: str | None = None

    @property
    def dimension(self) -> str:
        """The dotted name `metaeval` gives it (`issues.unsafe`)."""
        return ".".join(self.path)

    @property
    def agreeable(self) -> bool:
        """Whether there is a value to agree with: an expected score (3.42, `scoring=expected`)
        is no score a person gives, so it is corrected, never agreed with."""
        if self.kind == "score":
            return isinstance(self.value, int | float) and float(self.value).is_integer()
        return self.value is not None


def kind_of(value: JsonValue) -> DimensionKind | None:
    if isinstance(value, bool):
        return "yes/no"
    if isinstance(value, int | float):
        return "score"
    return "label" if isinstance(value, str) else None


def judged_dimensions(
    result: Mapping[str, JsonValue] | None, unscored: Sequence[JudgedDimension]
) -> list[JudgedDimension]:
    """A judgment's verdicts: each value of its result that is a label (its text, such as
    comments and reasons, is not), with the judge's comment on it where the result holds one
    (`comments.KEY` beside `issues.KEY`). An unscored judgment (`result` None) is reviewed on
    `unscored`, the dimensions the judge gives elsewhere, with no value to agree with."""
    if result is None:
        return [verdict.model_copy(update={"value": None, "comment": None}) for verdict in unscored]
    comments = result.get("comments")
    found = []
    for path, value in leaves(result):
        kind = kind_of(value)
        if kind is None:
            continue
        comment = comments.get(path[-1]) if isinstance(comments, dict) and len(path) > 1 else None
        if kind == "score" and isinstance(value, float) and value.is_integer():
            value = int(value)
        found.append(
            JudgedDimension(
                path=path,
                kind=kind,
                value=value,
                comment=comment if isinstance(comment, str) else None,
            )
        )
    return found


def reviewed_value(verdict: JudgedDimension, action: Action, at: tuple[str, ...]) -> JsonValue:
    """The label a verdict gets from the reviewer's action; `ReviewRefused` when it does not fit."""
    if action == "skip":
        return None
    if action == "agree":
        if not verdict.agreeable:
            reason = "the judge gave none" if verdict.value is None else "it is an expected score"
            raise ReviewRefused(at, f"nothing to agree with ({reason}): give the value or skip")
        return verdict.value
    if action == "disagree":
        if verdict.kind != "yes/no" or verdict.value is None:
            raise ReviewRefused(at, "only a yes/no verdict is disagreed with: give the value")
        return not verdict.value
    if isinstance(action, bool) != (verdict.kind == "yes/no") or verdict.kind == "label":
        wanted = {"yes/no": "true or false", "score": "a score 0-9", "label": "agree or skip"}
        raise ReviewRefused(at, f"a {verdict.kind} verdict takes {wanted[verdict.kind]}")
    return action


def review_labels(
    verdicts: Sequence[JudgedDimension], actions: Mapping[str, Action], at: tuple[str, ...] = ()
) -> dict[str, JsonValue]:
    """The labels of the verdicts reviewed (`actions`, by dimension), nested as the result."""
    known = {verdict.dimension: verdict for verdict in verdicts}
    unknown = sorted(set(actions) - set(known))
    if unknown:
        raise ReviewRefused((*at, unknown[0]), f"no such verdict (these: {', '.join(known)})")
    labels: dict[str, JsonValue] = {}
    for verdict in verdicts:
        if verdict.dimension not in actions:
            continue
        value = reviewed_value(verdict, actions[verdict.dimension], (*at, verdict.dimension))
        branch = labels
        for key in verdict.path[:-1]:
            inner = branch.setdefault(key, {})
            assert isinstance(inner, dict)
            branch = inner
        branch[verdict.path[-1]] = value
    return labels


def label_at(labels: Mapping[str, JsonValue], path: tuple[str, ...]) -> tuple[bool, JsonValue]:
    """(whether `labels` holds `path`, its value)."""
    branch: JsonValue = dict(labels)
    for key in path:
        if not isinstance(branch, dict) or key not in branch:
            return False, None
        branch = branch[key]
    return True, branch


def actions_of(
    verdicts: Sequence[JudgedDimension], labels: Mapping[str, JsonValue]
) -> dict[str, Action]:
    """What a stored review says of each verdict, as the page shows it: the inverse of
    `review_labels` (a correction to the judge's own value reads as agreement). A value the page
    cannot give (labels imported from elsewhere) leaves its verdict unreviewed."""
    actions: dict[str, Action] = {}
    for verdict in verdicts:
        held, value = label_at(labels, verdict.path)
        if not held:
            continue
        if value is None:
            actions[verdict.dimension] = "skip"
        elif verdict.agreeable and kind_of(value) == verdict.kind and value == verdict.value:
            actions[verdict.dimension] = "agree"
        elif verdict.kind == "yes/no" and isinstance(value, bool):
            actions[verdict.dimension] = "disagree" if verdict.value is not None else value
        elif verdict.kind == "score" and kind_of(value) == "score" and value in range(10):
            actions[verdict.dimension] = int(value)  # type: ignore[arg-type]  # 0-9 it is
    return actions


class ReviewIn(Record):
    """A reviewer's answers on one dialogue, as the page saves them on every change: judgment
    id -> dimension -> action, and `done` once they say the dialogue is finished, which needs
    every verdict answered. Strict: `1` is no `true` and `"3"` no 3."""

    model_config = ConfigDict(strict=True)

    reviews: dict[str, dict[str, Action]] = Field(default_factory=dict)
    done: bool = False


def review_annotations(
    sent: ReviewIn, reviewer: str, judged: Mapping[str, tuple[Judgment, list[JudgedDimension]]]
) -> list[Annotation]:
    """One annotation per judgment answered (`judged`: the dialogue's judgments under review,
    by id, with their verdicts), `complete` once the dialogue is done."""
    unknown = sorted(set(sent.reviews) - set(judged))
    if unknown:
        raise ReviewRefused(("reviews", unknown[0]), "not a judgment of this dialogue under review")
    if sent.done:
        left = sum(
            verdict.dimension not in sent.reviews.get(judgment_id, {})
            for judgment_id, (_, verdicts) in judged.items()
            for verdict in verdicts
        )
        if left:
            raise ReviewRefused(("done",), f"done needs every verdict answered: {left} not yet")
    made = []
    for judgment_id, actions in sent.reviews.items():
        if not actions:
            continue
        judgment, verdicts = judged[judgment_id]
        made.append(
            Annotation(
                annotator_id=reviewer,
                target=judgment.target,
                labels=review_labels(verdicts, actions, ("reviews", judgment_id)),
                created_at=utc_now(),
                complete=sent.done,
                review_of=judgment_id,
            )
        )
    return made
