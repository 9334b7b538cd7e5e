"""The organiser's pages: progress and agreement (a review's too), the dialogue list and pages,
the dialogues of one seed side by side, the report."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from fastapi.responses import FileResponse, HTMLResponse
from starlette.concurrency import run_in_threadpool

from dialbench.schema import Annotation
from dialbench.web.annotate import with_gold_scores
from dialbench.web.browse import DialogueFilters, dialogue_list, dialogue_view
from dialbench.web.context import WebContext, context_of, organiser, page
from dialbench.web.review_stats import review_figures
from dialbench.web.same_seed import same_seed, seed_view

router = APIRouter(dependencies=[Depends(organiser)])


@router.get("/organiser")
async def organiser_page(request: Request) -> HTMLResponse:
    """A coroutine, like the label writes: under their load each hand-over between the event
    loop and a worker thread waits for a whole round of the loop. Only the first agreement
    table, computed in this process (seconds), is left to a worker thread."""
    context = context_of(request)
    agreement = context.agreement
    rows = agreement.rows() if agreement.ready else await run_in_threadpool(agreement.rows)
    team = context.team()
    progress = [team.progress(annotator) for annotator in team.labellers]
    return page(
        request,
        "organiser.html.j2",
        progress=with_gold_scores(context.store(), team, progress),
        review=_review(context) if context.review else None,
        agreement=rows,
        settings=context.settings,
        report=(context.run_dir / "report" / "index.html").exists(),
        run=str(context.run_dir),
    )


def _review(context: WebContext) -> dict[str, object]:
    """The judge under review, each reviewer's progress, and per language how far the review
    is and how often the reviewers agreed with the judge."""
    task = context.reviewing()
    reviewers = context.review_team()
    languages, dimensions = review_figures(task, context.store().records(Annotation))
    return {
        "task": task,
        "progress": [reviewers.progress(annotator) for annotator in reviewers.annotators],
        "languages": languages,
        "dimensions": dimensions,
    }


@router.get("/dialogues")
def dialogues(request: Request, filters: Annotated[DialogueFilters, Query()]) -> HTMLResponse:
    found = dialogue_list(context_of(request).store(), filters)
    return page(request, "dialogues.html.j2", found=found, filters=filters)


@router.get("/dialogues/{dialogue_id:path}")
def dialogue(request: Request, dialogue_id: str) -> HTMLResponse:
    context = context_of(request)
    view = dialogue_view(context.store(), dialogue_id)
    if view is None:
        raise HTTPException(404, f"no dialogue {dialogue_id} in this run")
    same = same_seed(context.store(), dialogue_id)
    return page(request, "dialogue.html.j2", view=view, same=same, labels=context.labels)


@router.get("/seeds/{unit:path}")
def seed(
    request: Request, unit: str, chatbots: Annotated[str, Query(max_length=2000)] = ""
) -> HTMLResponse:
    """`?chatbots=a,b`: only these chatbots' dialogues, in that order (a report's pair)."""
    wanted = [name.strip() for name in chatbots.split(",") if name.strip()]
    view = seed_view(context_of(request).store(), unit, wanted)
    if view is None:
        raise HTTPException(404, f"no dialogue grew from seed {unit} in this run")
    return page(request, "seed.html.j2", view=view)


@router.get("/report/{path:path}")
def report_file(request: Request, path: str) -> FileResponse:
    """The run's report (`dialbench report RUN`), whose tables link back to `/dialogues`."""
    folder = (context_of(request).run_dir / "report").resolve()
    if "\0" in path:  # no file has one, and resolve() would fail on it
        raise HTTPException(404, "no report file with a NUL byte in its name")
    wanted = (folder / (path or "index.html")).resolve()
    if not wanted.is_relative_to(folder) or not wanted.is_file():
        raise HTTPException(404, f"no report file {path!r} (write it: dialbench report RUN)")
    return FileResponse(wanted)
