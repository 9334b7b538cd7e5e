"""The web app over one run directory: `create_app(run_dir, organiser_hash)`.

Every page needs a session: a secret link (`/enter?token=...`) puts the token in an HttpOnly,
SameSite=Lax cookie and redirects to a URL without it (asking first when the browser is signed in
as someone else). Pages are Jinja2 templates with autoescape on, served with a
Content-Security-Policy that allows only this app's own script, so dialogue text (model output:
it can contain anything) is shown and never run.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated
from urllib.parse import parse_qs, quote

from fastapi import Depends, FastAPI, HTTPException, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from jinja2 import Environment, PackageLoader
from starlette.exceptions import HTTPException as StarletteHTTPException

from dialbench.issue_labels import load_issue_labels
from dialbench.store import RunStore
from dialbench.web import annotator_routes, organiser_routes, review_routes
from dialbench.web.annotate import LiveAgreement
from dialbench.web.annotators import AssignmentSettings
from dialbench.web.auth import COOKIE, Session, csrf_valid, identify
from dialbench.web.context import (
    Stores,
    WebContext,
    context_of,
    current_session,
    page,
    session_of,
)
from dialbench.web.guard import GuardMiddleware
from dialbench.web.review_task import ReviewChoice, ReviewTask


def create_app(
    run_dir: str | Path,
    organiser_hash: str,
    settings: AssignmentSettings | None = None,
    review: ReviewChoice | None = None,
) -> FastAPI:
    """The app for one run directory; `organiser_hash` is the SHA-256 of the organiser's token.
    With `review`, annotators review that judge's verdicts (at /review) besides labelling."""
    run_dir = Path(run_dir)
    with RunStore.open(run_dir, create=False) as store:  # fails early, naming the directory
        task = ReviewTask.load(store, review) if review else None
    templates = Environment(loader=PackageLoader("dialbench.web", "templates"), autoescape=True)
    templates.filters["segment"] = url_segment
    context = WebContext(
        run_dir=run_dir,
        organiser_hash=organiser_hash,
        settings=settings or AssignmentSettings(),
        stores=Stores(run_dir),
        server_secret=secrets.token_bytes(32),
        templates=templates,
        labels=load_issue_labels(),
        agreement=LiveAgreement(run_dir),
        review=task,
    )

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        """One `serve` run per server process: every label saved is stored under it."""
        with RunStore.open(run_dir, create=False) as store:
            context.serving.append(
                store.start_invocation("serve", context.settings.model_dump(mode="json"))
            )
        context.agreement.warm_up()
        try:
            yield
        finally:
            with RunStore.open(run_dir, create=False) as store:
                store.finish_invocation(context.serving.pop())
            context.close()

    app = FastAPI(
        lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None, title="dialbench"
    )
    app.state.context = context
    app.add_middleware(GuardMiddleware)
    app.mount("/static", StaticFiles(packages=[("dialbench.web", "static")]), name="static")
    # Starlette's own 404 and 405 (no such route, no such method) as well as the app's.
    app.add_exception_handler(StarletteHTTPException, _http_error)  # type: ignore[arg-type]
    app.add_exception_handler(RequestValidationError, _invalid)  # type: ignore[arg-type]
    app.add_api_route("/enter", _enter, methods=["GET"])
    app.add_api_route("/enter", _switch, methods=["POST"])
    app.add_api_route("/", _home, methods=["GET"])
    app.include_router(organiser_routes.router)
    app.include_router(annotator_routes.router)
    app.include_router(review_routes.router)
    return app


def url_segment(text: str) -> str:
    """A stored id as one URL path segment (`/`, `?`, `#`, `%` encoded): the routes take the
    rest of the path, so any id reaches its page."""
    return quote(text, safe="")


async def _http_error(request: Request, error: StarletteHTTPException) -> Response:
    """JSON for the API, a page for people (a mistyped address included)."""
    if request.url.path.startswith("/api/"):
        answer: Response = JSONResponse({"detail": error.detail}, status_code=error.status_code)
    else:
        answer = page(request, "error.html.j2", error.status_code, message=error.detail)
    answer.headers.update(error.headers or {})  # a 405's Allow
    return answer


async def _invalid(request: Request, error: RequestValidationError) -> Response:
    """A 4xx naming each bad field: 422 for the API, a 400 page for a bad filter in a URL."""
    problems = "; ".join(_problem(e["loc"], e["msg"]) for e in error.errors())
    if request.url.path.startswith("/api/"):
        return JSONResponse({"detail": problems}, status_code=422)
    return page(request, "error.html.j2", 400, message=problems)


def _problem(location: Sequence[object], message: str) -> str:
    """`field.sub: message`, or the message alone when it is about the whole body."""
    field = ".".join(str(part) for part in location if part != "body")
    return f"{field}: {message}" if field else message


def _enter(request: Request, token: Annotated[str, Query(max_length=200)]) -> Response:
    """A secret link: the token moves into a cookie, and the URL without it is where one lands.
    A browser signed in as someone else is asked first: a link from anyone must not silently
    make the next labels theirs (login CSRF)."""
    context = context_of(request)
    wanted = identify(token, context.organiser_hash, context.annotators())
    if wanted is None:
        raise HTTPException(403, "this link is not valid (ask the organiser for yours)")
    current = current_session(request)
    if current is None or current.token_hash == wanted.token_hash:
        return _signed_in(token)
    request.state.session = current
    question = page(
        request,
        "switch.html.j2",
        current_name=_who(current),
        new_name=_who(wanted),
        token=token,
    )
    # Under the app's no-referrer policy a browser sends "Origin: null" with the form's POST,
    # which `_switch` cannot tell from another site's; this policy sends the origin only.
    question.headers["referrer-policy"] = "strict-origin"
    return question


async def _switch(request: Request) -> Response:
    """The answer to "switch?": only from this app's own page (the Origin says so, and the
    CSRF token of the session it replaces)."""
    origin = request.headers.get("origin")
    if origin is not None and origin != f"{request.url.scheme}://{request.url.netloc}":
        raise HTTPException(403, "a sign-in from another site's page is refused")
    if request.headers.get("sec-fetch-site", "same-origin") != "same-origin":
        raise HTTPException(403, "a sign-in from another site's page is refused")
    form = parse_qs((await request.body()).decode("utf-8", "replace"))
    token, csrf = form.get("token", [""])[0], form.get("csrf", [None])[0]
    context = context_of(request)
    if identify(token, context.organiser_hash, context.annotators()) is None:
        raise HTTPException(403, "this link is not valid (ask the organiser for yours)")
    current = current_session(request)
    if current is not None and not csrf_valid(context.server_secret, current, csrf):
        raise HTTPException(403, "missing or wrong CSRF token: follow the link again")
    return _signed_in(token)


def _who(session: Session) -> str:
    return session.annotator.name if session.annotator else "the organiser"


def _signed_in(token: str) -> Response:
    """Lax, not Strict: a link followed from mail or chat then shows who is signed in already,
    so that switching can be asked; writes still need the page's CSRF token."""
    response = RedirectResponse("/", status_code=303)
    response.set_cookie(COOKIE, token, httponly=True, samesite="lax", path="/")
    return response


def _home(request: Request, session: Annotated[Session, Depends(session_of)]) -> Response:
    """The organiser's page, or an annotator's dialogues: to review, on a review server."""
    if session.is_organiser:
        return RedirectResponse("/organiser", 303)
    return RedirectResponse("/review" if context_of(request).review else "/annotate", 303)
