"""The annotator's pages: their dialogues with progress, one dialogue to label, and the save
endpoint the page calls on every change (a write commits before its answer is sent)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse

from dialbench.schema import Annotation, Annotator, Dialogue
from dialbench.store import RunStore
from dialbench.web.annotate import LabelsIn, labels_in
from dialbench.web.auth import csrf_token
from dialbench.web.context import annotator_of, context_of, page, writer
from dialbench.web.request_body import parsed_body
from dialbench.web.team import Team

SHORTCUT_KEYS = "qwertyuiop"
router = APIRouter()


@router.get("/annotate")
def annotate_home(
    request: Request, annotator: Annotated[Annotator, Depends(annotator_of)]
) -> HTMLResponse:
    if annotator.benchmark is None:
        return page(request, "reviewer_only.html.j2", annotator=annotator)
    return assigned_list(request, annotator, context_of(request).team([annotator.name]), "annotate")


def assigned_list(request: Request, annotator: Annotator, team: Team, task: str) -> HTMLResponse:
    """An annotator's dialogues of a task (`annotate`, `review`, its pages' path), with their
    progress and where to resume."""
    items = team.assigned(annotator)
    own = team.labelled.get(annotator.name, {})
    done = {d for d, complete in own.items() if complete}
    resume = next((i.dialogue_id for i in items if i.dialogue_id not in done), None)
    return page(
        request,
        "annotate_list.html.j2",
        task=task,
        annotator=annotator,
        items=items,
        started=set(own),
        done=done,
        resume=resume,
        progress=team.progress(annotator, [i.dialogue_id for i in items]),
        review=context_of(request).review if task == "review" else None,
    )


def assigned_order(team: Team, annotator: Annotator, dialogue_id: str) -> list[str]:
    """The annotator's dialogues in order; 404 when `dialogue_id` is not among them."""
    order = [i.dialogue_id for i in team.assigned(annotator)]
    if dialogue_id not in order:
        raise HTTPException(404, f"dialogue {dialogue_id} is not among yours")
    return order


def run_dialogue(store: RunStore, dialogue_id: str) -> Dialogue:
    """A dialogue of an annotator's benchmark, from the run; 404 when the run lacks it."""
    found = store.get(Dialogue, dialogue_id)
    if found is None:
        raise HTTPException(404, f"dialogue {dialogue_id} is in the benchmark, not the run")
    return found


@router.get("/annotate/{dialogue_id:path}")
def annotate_page(
    request: Request, dialogue_id: str, annotator: Annotated[Annotator, Depends(annotator_of)]
) -> HTMLResponse:
    context = context_of(request)
    team = context.team([annotator.name])
    order = assigned_order(team, annotator, dialogue_id)
    store = context.store()
    found = run_dialogue(store, dialogue_id)
    mine = next(
        (
            a
            for a in store.records(Annotation, dialogue_id=dialogue_id)
            if a.annotator_id == annotator.name
            and a.target.kind == "dialogue"
            and a.review_of is None
        ),
        None,
    )
    labels = context.labels
    return page(
        request,
        "annotate.html.j2",
        dialogue=found,
        annotator=annotator,
        saved=labels_in(mine),
        labels=[(label, SHORTCUT_KEYS[n]) for n, label in enumerate(labels.issues)],
        overall=labels.overall,
        position=order.index(dialogue_id),
        order=order,
        progress=team.progress(annotator, order),
    )


@router.get("/api/csrf")
def fresh_csrf(request: Request, _: Annotated[Annotator, Depends(annotator_of)]) -> dict[str, str]:
    """The session's CSRF token for this server process: a page opened before a restart gets
    it here and saves again, instead of losing the label. Only this origin can read it."""
    return {"csrf": csrf_token(context_of(request).server_secret, request.state.session)}


@router.put("/api/labels/{dialogue_id:path}")
async def save_labels(
    request: Request, dialogue_id: str, annotator: Annotated[Annotator, Depends(writer)]
) -> JSONResponse:
    """Store the labels (`done` marks the dialogue finished); answers the annotator's progress.
    A coroutine: the write is the app's busiest route, and its work (a few small reads, one
    commit that does not wait for the disk under WAL) costs less than a hand-over to a worker
    thread and back."""
    labels_given = parsed_body(await request.body(), LabelsIn)
    context = context_of(request)
    team = context.team([annotator.name])
    order = assigned_order(team, annotator, dialogue_id)
    annotation = labels_given.annotation(annotator, dialogue_id)
    context.store().add([annotation], context.serving[0], on_conflict="replace")
    team.labelled[annotator.name][dialogue_id] = annotation.complete
    mine = team.progress(annotator, order)
    return JSONResponse(
        {
            "saved": annotation.id,
            "done": mine.done,
            "started": mine.started,
            "assigned": mine.assigned,
        }
    )
