"""The web app over one run directory: `create_app(run_dir, organiser_hash)`.

Every page needs a session: a secret link (`/enter?token=...`) puts the token in an HttpOnly,
SameSite=Strict cookie and redirects to a URL without it. Pages are Jinja2 templates with
autoescape on, served with a Content-Security-Policy that allows only this app's own script, so
dialogue text (model output: it can contain anything) is shown and never run.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated
from urllib.parse import quote

from fastapi import Depends, FastAPI, HTTPException, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from jinja2 import Environment, PackageLoader

from dialbench.issue_labels import load_issue_labels
from dialbench.store import RunStore
from dialbench.web import annotator_routes, organiser_routes
from dialbench.web.annotators import AssignmentSettings
from dialbench.web.auth import COOKIE, Session, identify
from dialbench.web.context import Stores, WebContext, context_of, page, session_of
from dialbench.web.guard import GuardMiddleware


def create_app(
    run_dir: str | Path,
    organiser_hash: str,
    settings: AssignmentSettings | None = None,
) -> FastAPI:
    """The app for one run directory; `organiser_hash` is the SHA-256 of the organiser's token."""
    run_dir = Path(run_dir)
    RunStore.open(run_dir, create=False).close()  # fails early, naming the directory
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
    )

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        """One `serve` run per server process: every label saved is stored under it."""
        with RunStore.open(run_dir, create=False) as store:
            context.serving.append(
                store.start_run("serve", context.settings.model_dump(mode="json"))
            )
        try:
            yield
        finally:
            with RunStore.open(run_dir, create=False) as store:
                store.finish_run(context.serving.pop())
            context.stores.close()

    app = FastAPI(
        lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None, title="dialbench"
    )
    app.state.context = context
    app.add_middleware(GuardMiddleware)
    app.mount("/static", StaticFiles(packages=[("dialbench.web", "static")]), name="static")
    app.add_exception_handler(HTTPException, _http_error)  # type: ignore[arg-type]
    app.add_exception_handler(RequestValidationError, _invalid)  # type: ignore[arg-type]
    app.add_api_route("/enter", _enter, methods=["GET"])
    app.add_api_route("/", _home, methods=["GET"])
    app.include_router(organiser_routes.router)
    app.include_router(annotator_routes.router)
    return app


def url_segment(text: str) -> str:
    """A stored id as one URL path segment (`/`, `?`, `#`, `%` encoded): the routes take the
    rest of the path, so any id reaches its page."""
    return quote(text, safe="")


async def _http_error(request: Request, error: HTTPException) -> Response:
    if request.url.path.startswith("/api/"):
        return JSONResponse({"detail": error.detail}, status_code=error.status_code)
    return page(request, "error.html.j2", error.status_code, message=error.detail)


async def _invalid(request: Request, error: RequestValidationError) -> Response:
    """A 4xx naming each bad field: 422 for the API, a 400 page for a bad filter in a URL."""
    problems = "; ".join(
        f"{'.'.join(str(p) for p in e['loc'] if p != 'body')}: {e['msg']}" for e in error.errors()
    )
    if request.url.path.startswith("/api/"):
        return JSONResponse({"detail": problems}, status_code=422)
    return page(request, "error.html.j2", 400, message=problems)


def _enter(request: Request, token: Annotated[str, Query(max_length=200)]) -> Response:
    """A secret link: the token moves into a cookie, and the URL without it is where one lands."""
    context = context_of(request)
    if identify(token, context.organiser_hash, context.annotators()) is None:
        raise HTTPException(403, "this link is not valid (ask the organiser for yours)")
    response = RedirectResponse("/", status_code=303)
    response.set_cookie(COOKIE, token, httponly=True, samesite="strict", path="/")
    return response


def _home(session: Annotated[Session, Depends(session_of)]) -> Response:
    return RedirectResponse("/organiser" if session.is_organiser else "/annotate", 303)
