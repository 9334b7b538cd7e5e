"""The reviewer's pages (`dialbench serve RUN --review PROTOCOL`): the dialogues whose verdicts
they review, one dialogue with the judge's verdicts beside its turns, and the save the page
calls on every change (a write commits before its answer is sent)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse

from dialbench.issue_labels import ISSUES_PREFIX, IssueLabels, load_tool_issue_labels
from dialbench.ratings import TEXT_KEYS
from dialbench.schema import Annotation, Annotator, Judgment
from dialbench.web.annotator_routes import assigned_list, assigned_order, run_dialogue
from dialbench.web.context import annotator_of, context_of, page, writer
from dialbench.web.request_body import parsed_body
from dialbench.web.review import (
    Action,
    JudgedDimension,
    ReviewIn,
    ReviewRefused,
    actions_of,
    review_annotations,
)

router = APIRouter()


@dataclass(frozen=True)
class JudgmentReview:
    """One judgment as the review page shows it: its verdicts, the reviewer's answers so far
    (dimension -> action) and the judge's own words (reason, ...)."""

    judgment: Judgment
    verdicts: list[JudgedDimension]
    actions: dict[str, Action]
    notes: list[tuple[str, str]]


def _titles(labels: IssueLabels) -> dict[str, tuple[str, str]]:
    """Dimension -> (title, definition), for those the annotators' own page names."""
    issues = [*labels.issues, *load_tool_issue_labels().issues]
    titles = {f"{ISSUES_PREFIX}{label.key}": (label.title, label.definition) for label in issues}
    return titles | {labels.overall.key: (labels.overall.title, labels.overall.definition)}


def _shown_order(titles: dict[str, tuple[str, str]], dimension: str) -> int:
    """The verdicts in the order the annotation page asks them (a stored result's keys are
    sorted), those it does not ask after them."""
    return list(titles).index(dimension) if dimension in titles else len(titles)


@router.get("/review")
def review_home(
    request: Request, annotator: Annotated[Annotator, Depends(annotator_of)]
) -> HTMLResponse:
    team = context_of(request).review_team([annotator.name])
    return assigned_list(request, annotator, team, "review")


@router.get("/review/{dialogue_id:path}")
def review_page(
    request: Request, dialogue_id: str, annotator: Annotated[Annotator, Depends(annotator_of)]
) -> HTMLResponse:
    context = context_of(request)
    task = context.reviewing()
    team = context.review_team([annotator.name])
    order = assigned_order(team, annotator, dialogue_id)
    store = context.store()
    found = run_dialogue(store, dialogue_id)
    mine = {
        a.review_of: a
        for a in store.records(Annotation, dialogue_id=dialogue_id)
        if a.annotator_id == annotator.name and a.review_of is not None
    }
    titles = _titles(context.labels)
    reviews = []
    for judgment, verdicts in task.judged(dialogue_id).values():
        verdicts.sort(key=lambda v: _shown_order(titles, v.dimension))
        stored = mine.get(judgment.id)
        notes = [
            (key, value)
            for key, value in (judgment.result or {}).items()
            if key in TEXT_KEYS and isinstance(value, str) and value
        ]
        actions = actions_of(verdicts, stored.labels) if stored else {}
        reviews.append(JudgmentReview(judgment, verdicts, actions, notes))
    return page(
        request,
        "review.html.j2",
        dialogue=found,
        task=task,
        reviews=reviews,
        by_turn={r.judgment.target.turn_index: r for r in reviews},
        titles=titles,
        done=team.labelled.get(annotator.name, {}).get(dialogue_id) is True,
        position=order.index(dialogue_id),
        order=order,
        progress=team.progress(annotator, order),
    )


@router.put("/api/reviews/{dialogue_id:path}")
async def save_review(
    request: Request, dialogue_id: str, annotator: Annotated[Annotator, Depends(writer)]
) -> JSONResponse:
    """Store the reviews of the dialogue's judgments (`done` marks it finished); answers the
    reviewer's progress."""
    sent = parsed_body(await request.body(), ReviewIn)
    context = context_of(request)
    task = context.reviewing()
    team = context.review_team([annotator.name])
    order = assigned_order(team, annotator, dialogue_id)
    try:
        annotations = review_annotations(sent, annotator.name, task.judged(dialogue_id))
    except ReviewRefused as refused:
        problem = {"loc": refused.location, "msg": refused.message, "type": "value_error"}
        raise RequestValidationError([problem]) from None
    if annotations:
        context.store().add(annotations, context.serving[0], on_conflict="replace")
        team.labelled[annotator.name][dialogue_id] = sent.done
    mine = team.progress(annotator, order)
    return JSONResponse(
        {
            "saved": [a.id for a in annotations],
            "done": mine.done,
            "started": mine.started,
            "assigned": mine.assigned,
        }
    )
