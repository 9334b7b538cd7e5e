"""Labels from a reviewer's answers: the judge's own dimensions in the shape of its result, so
`metaeval` pairs them with no `--pair`; and back, what a stored review says of each verdict."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from dialbench.ratings import flatten
from dialbench.schema import Judgment, Target
from dialbench.web.review import (
    JudgedDimension,
    ReviewIn,
    ReviewRefused,
    actions_of,
    judged_dimensions,
    review_annotations,
    review_labels,
)

ISSUES = {
    "issues": {"unsafe": False, "lacks_empathy": True},
    "comments": {"lacks_empathy": "dismisses the user"},
    "overall": 2,
}


def _issues_verdicts() -> list[JudgedDimension]:
    return judged_dimensions(ISSUES, [])


def test_verdicts_are_the_result_s_labels_with_the_judge_s_comment_text_left_out() -> None:
    verdicts = _issues_verdicts()
    assert [(v.dimension, v.kind, v.value) for v in verdicts] == [
        ("issues.unsafe", "yes/no", False),
        ("issues.lacks_empathy", "yes/no", True),
        ("overall", "score", 2),
    ]
    assert verdicts[1].comment == "dismisses the user"
    holistic = judged_dimensions({"reason": "fine", "quality": 2.0}, [])
    assert [(v.dimension, v.value, v.agreeable) for v in holistic] == [("quality", 2, True)]


def test_agreed_disagreed_corrected_and_skipped_verdicts_become_labels_shaped_as_the_result() -> (
    None
):
    labels = review_labels(
        _issues_verdicts(),
        {"issues.unsafe": "disagree", "issues.lacks_empathy": "agree", "overall": 4},
    )
    assert labels == {"issues": {"unsafe": True, "lacks_empathy": True}, "overall": 4}
    assert dict(flatten(labels)).keys() == dict(flatten(ISSUES)).keys()  # pairs as metaeval does
    skipped = review_labels(_issues_verdicts(), {"overall": "skip"})
    assert skipped == {"overall": None}
    assert list(flatten(skipped)) == []  # reviewed, but no rating


@pytest.mark.parametrize(
    ("dimension", "action", "says"),
    [
        ("overall", "disagree", "only a yes/no verdict is disagreed with"),
        ("issues.unsafe", 3, "a yes/no verdict takes true or false"),
        ("overall", True, "a score verdict takes a score 0-9"),
        ("sensibleness", "agree", "nothing to agree with"),
    ],
)
def test_an_answer_that_does_not_fit_its_verdict_is_refused_naming_it(
    dimension: str, action: object, says: str
) -> None:
    verdicts = _issues_verdicts() + judged_dimensions({"sensibleness": 3.42}, [])
    with pytest.raises(ReviewRefused, match=says) as refused:
        review_labels(verdicts, {dimension: action}, ("reviews", "j-1"))  # type: ignore[dict-item]
    assert refused.value.location == ("reviews", "j-1", dimension)


def test_an_unscored_judgment_is_answered_on_the_judge_s_dimensions_without_a_value() -> None:
    verdicts = judged_dimensions(None, _issues_verdicts())
    assert [(v.dimension, v.value, v.agreeable) for v in verdicts] == [
        ("issues.unsafe", None, False),
        ("issues.lacks_empathy", None, False),
        ("overall", None, False),
    ]
    labels = review_labels(verdicts, {"issues.unsafe": True, "overall": 3})
    assert labels == {"issues": {"unsafe": True}, "overall": 3}
    assert actions_of(verdicts, labels) == {"issues.unsafe": True, "overall": 3}


def test_a_stored_review_reads_back_as_the_answers_that_made_it() -> None:
    verdicts = _issues_verdicts()
    answers = {"issues.unsafe": "disagree", "issues.lacks_empathy": "skip", "overall": 5}
    assert actions_of(verdicts, review_labels(verdicts, answers)) == answers  # type: ignore[arg-type]
    assert actions_of(verdicts, {"overall": 2}) == {"overall": "agree"}
    assert actions_of(verdicts, {"overall": "good"}) == {}  # nothing the page could have given


def test_an_expected_score_is_corrected_never_agreed_with() -> None:
    (verdict,) = judged_dimensions({"sensibleness": 3.42}, [])
    assert not verdict.agreeable
    assert review_labels([verdict], {"sensibleness": 3}) == {"sensibleness": 3}


def test_answers_are_strict_json() -> None:
    assert ReviewIn.model_validate({"reviews": {"j": {"a": True, "b": 3, "c": "skip"}}})
    for wrong in ("3", 1.0, "maybe", 10, -1):
        with pytest.raises(ValidationError):
            ReviewIn.model_validate({"reviews": {"j": {"overall": wrong}}})


def _judgment(turn: int | None = None, result: dict[str, object] | None = None) -> Judgment:
    return Judgment(
        protocol="issues",
        judge_model="judge-x",
        target=Target(dialogue_id="d1", turn_index=turn),
        parse_status="ok",
        result=result or ISSUES,  # type: ignore[arg-type]
    )


def test_a_dialogue_s_review_is_one_annotation_per_judgment_complete_once_done() -> None:
    judgment = _judgment()
    judged = {judgment.id: (judgment, _issues_verdicts())}
    every = {"issues.unsafe": "agree", "issues.lacks_empathy": "disagree", "overall": "agree"}
    (partial,) = review_annotations(
        ReviewIn(reviews={judgment.id: {"overall": 3}}), "alice", judged
    )
    assert (partial.labels, partial.complete, partial.review_of) == (
        {"overall": 3},
        False,
        judgment.id,
    )
    assert partial.target == judgment.target
    with pytest.raises(ReviewRefused, match="done needs every verdict answered: 2 not yet"):
        review_annotations(ReviewIn(reviews={judgment.id: {"overall": 3}}, done=True), "a", judged)
    (done,) = review_annotations(ReviewIn(reviews={judgment.id: every}, done=True), "alice", judged)
    assert done.complete
    assert done.id == partial.id  # saved again, replacing the partial one
    assert done.labels == {"issues": {"unsafe": False, "lacks_empathy": False}, "overall": 2}
    with pytest.raises(ReviewRefused, match="not a judgment of this dialogue"):
        review_annotations(ReviewIn(reviews={"j-other": every}), "alice", judged)


def test_a_review_and_the_reviewer_s_own_label_of_the_same_dialogue_are_two_records() -> None:
    judgment = _judgment()
    (review,) = review_annotations(
        ReviewIn(reviews={judgment.id: {"overall": 3}}),
        "alice",
        {judgment.id: (judgment, _issues_verdicts())},
    )
    own = review.model_copy(update={"id": "", "review_of": None})
    assert type(own).model_validate(own.model_dump()).id != review.id
