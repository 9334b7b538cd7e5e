"""The annotator's pages: their dialogues with progress, one dialogue to label, and the save
endpoint the page calls on every change (a write commits before its answer is sent)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import HTMLResponse

from dialbench.schema import Annotation, Annotator, Dialogue
from dialbench.web.annotate import LabelsIn, is_complete, labels_in, labels_sent, progress
from dialbench.web.annotators import assigned_items
from dialbench.web.auth import csrf_token
from dialbench.web.context import WebContext, annotator_of, context_of, page, writer

SHORTCUT_KEYS = "qwertyuiop"
router = APIRouter()


@router.get("/annotate")
def annotate_home(
    request: Request, annotator: Annotated[Annotator, Depends(annotator_of)]
) -> HTMLResponse:
    context = context_of(request)
    store = context.store()
    items = assigned_items(store, annotator, context.settings)
    own = {a.target.dialogue_id: a for a in store.records(Annotation, annotator_id=annotator.name)}
    done = {d for d, a in own.items() if is_complete(a)}
    resume = next((i.dialogue_id for i in items if i.dialogue_id not in done), None)
    return page(
        request,
        "annotate_list.html.j2",
        annotator=annotator,
        items=items,
        started=set(own),
        done=done,
        resume=resume,
        progress=progress(store, annotator, context.settings, [i.dialogue_id for i in items]),
    )


def assigned_order(context: WebContext, annotator: Annotator, dialogue_id: str) -> list[str]:
    """The annotator's dialogues in order; 404 when `dialogue_id` is not among them."""
    order = [i.dialogue_id for i in assigned_items(context.store(), annotator, context.settings)]
    if dialogue_id not in order:
        raise HTTPException(404, f"dialogue {dialogue_id} is not among yours")
    return order


@router.get("/annotate/{dialogue_id:path}")
def annotate_page(
    request: Request, dialogue_id: str, annotator: Annotated[Annotator, Depends(annotator_of)]
) -> HTMLResponse:
    context = context_of(request)
    order = assigned_order(context, annotator, dialogue_id)
    store = context.store()
    found = store.get(Dialogue, dialogue_id)
    if found is None:
        raise HTTPException(404, f"dialogue {dialogue_id} is in the benchmark, not the run")
    mine = next(
        (
            a
            for a in store.records(Annotation, dialogue_id=dialogue_id)
            if a.annotator_id == annotator.name and a.target.kind == "dialogue"
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
        progress=progress(store, annotator, context.settings, order),
    )


@router.get("/api/csrf")
def fresh_csrf(request: Request, _: Annotated[Annotator, Depends(annotator_of)]) -> dict[str, str]:
    """The session's CSRF token for this server process: a page opened before a restart gets
    it here and saves again, instead of losing the label. Only this origin can read it."""
    return {"csrf": csrf_token(context_of(request).server_secret, request.state.session)}


async def labels_of(request: Request) -> LabelsIn:
    return labels_sent(await request.body())


@router.put("/api/labels/{dialogue_id:path}")
def save_labels(
    request: Request,
    dialogue_id: str,
    labels_given: Annotated[LabelsIn, Depends(labels_of)],
    annotator: Annotated[Annotator, Depends(writer)],
) -> dict[str, Any]:
    context = context_of(request)
    order = assigned_order(context, annotator, dialogue_id)
    store = context.store()
    annotation = labels_given.annotation(annotator, dialogue_id)
    store.add([annotation], context.serving[0], on_conflict="replace")
    mine = progress(store, annotator, context.settings, order)
    return {"saved": annotation.id, "done": mine.done, "assigned": mine.assigned}
