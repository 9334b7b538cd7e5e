"""The web app over one run directory: `create_app(run_dir, organiser_hash)`.

Every page needs a session: a secret link (`/enter?token=...`) puts the token in an HttpOnly,
SameSite=Strict cookie and redirects to a URL without it. Pages are Jinja2 templates with
autoescape on, served with a Content-Security-Policy that allows only this app's own script, so
dialogue text (model output: it can contain anything) is shown and never run.
"""

# No `from __future__ import annotations`: FastAPI reads the routes' annotations, which name
# dependencies local to `create_app`.
import logging
import secrets
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, FastAPI, HTTPException, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from jinja2 import Environment, PackageLoader
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from dialbench.issue_labels import load_issue_labels
from dialbench.schema import Annotation, Annotator, Dialogue, Run
from dialbench.store import RunStore
from dialbench.web.annotate import (
    LabelsIn,
    agreement_rows,
    is_complete,
    labels_in,
    progress,
)
from dialbench.web.annotators import AssignmentSettings, assigned_items
from dialbench.web.auth import COOKIE, CSRF_HEADER, Session, csrf_token, csrf_valid, identify
from dialbench.web.browse import DialogueFilters, dialogue_list, dialogue_view

MAX_BODY_BYTES = 64 * 1024
SHORTCUT_KEYS = "qwertyuiop"
log = logging.getLogger("dialbench.web")
SECURITY_HEADERS = {
    "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self' "
    "'unsafe-inline'; img-src 'self'; connect-src 'self'; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cache-control": "no-store",
}


class GuardMiddleware:
    """Refuses bodies over MAX_BODY_BYTES with 413 (declared or sent in chunks: the body is read
    here, up to the limit, before the app sees it), adds the security headers, and logs each
    request by method, path (never the query string, where a secret link's token travels) and
    status."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started, status = time.perf_counter(), 500

        async def secured(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [
                    *message.get("headers", []),
                    *((k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items()),
                ]
            await send(message)

        body = await _body_within_limit(scope, receive)
        if body is None:
            too_large = {"detail": f"request body larger than {MAX_BODY_BYTES} bytes"}
            await JSONResponse(too_large, status_code=413)(scope, receive, secured)
        else:
            await self.app(scope, _replay(body, receive), secured)
        elapsed = (time.perf_counter() - started) * 1000
        log.info("%s %s %d %.1fms", scope["method"], scope["path"], status, elapsed)


async def _body_within_limit(scope: Scope, receive: Receive) -> bytes | None:
    """The whole request body, or None as soon as it is known to be too large."""
    declared = dict(scope["headers"]).get(b"content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY_BYTES):
        return None
    chunks, size, more = [], 0, True
    while more:
        message = await receive()
        if message["type"] != "http.request":  # the client went away
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            return None
        chunks.append(chunk)
        more = message.get("more_body", False)
    return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """The body read by the guard, handed to the app as one message; then the real stream
    (which only says when the client disconnects)."""
    pending = [body]

    async def replayed() -> Message:
        if pending:
            return {"type": "http.request", "body": pending.pop(), "more_body": False}
        return await receive()

    return replayed


class Stores:
    """One store connection per server thread (SQLite connections are not shared): WAL lets
    readers run beside the writer, and each write commits before its response is sent."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self._local = threading.local()
        self._opened: list[RunStore] = []
        self._lock = threading.Lock()

    def get(self) -> RunStore:
        store: RunStore | None = getattr(self._local, "store", None)
        if store is None:
            store = RunStore.open(self.run_dir, create=False, any_thread=True)
            self._local.store = store
            with self._lock:
                self._opened.append(store)
        return store

    def close(self) -> None:
        with self._lock:
            for store in self._opened:
                store.close()
            self._opened.clear()


def create_app(
    run_dir: str | Path,
    organiser_hash: str,
    settings: AssignmentSettings | None = None,
) -> FastAPI:
    """The app for one run directory; `organiser_hash` is the SHA-256 of the organiser's token."""
    run_dir = Path(run_dir)
    settings = settings or AssignmentSettings()
    RunStore.open(run_dir, create=False).close()  # fails early, naming the directory
    stores = Stores(run_dir)
    server_secret = secrets.token_bytes(32)
    templates = Environment(loader=PackageLoader("dialbench.web", "templates"), autoescape=True)
    labels = load_issue_labels()
    serving: dict[str, Run] = {}

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        with RunStore.open(run_dir, create=False) as store:
            serving["run"] = store.start_run("serve", settings.model_dump(mode="json"))
        try:
            yield
        finally:
            with RunStore.open(run_dir, create=False) as store:
                store.finish_run(serving["run"])
            stores.close()

    app = FastAPI(
        lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None, title="dialbench"
    )
    app.add_middleware(GuardMiddleware)
    app.mount("/static", StaticFiles(packages=[("dialbench.web", "static")]), name="static")

    def page(request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        session: Session | None = getattr(request.state, "session", None)
        csrf = csrf_token(server_secret, session) if session else ""
        html = templates.get_template(name).render(session=session, csrf=csrf, **context)
        return HTMLResponse(html, status_code=status)

    def session_of(request: Request) -> Session:
        token = request.cookies.get(COOKIE)
        annotators = list(stores.get().records(Annotator))
        found = identify(token, organiser_hash, annotators) if token else None
        if found is None:
            raise HTTPException(401, "open your secret link first: no page without one")
        request.state.session = found
        return found

    def organiser(session: Annotated[Session, Depends(session_of)]) -> Session:
        if not session.is_organiser:
            raise HTTPException(403, "this page is the organiser's")
        return session

    def annotator_of(session: Annotated[Session, Depends(session_of)]) -> Annotator:
        if session.annotator is None:
            raise HTTPException(403, "this page is for annotators: the organiser has /organiser")
        return session.annotator

    def writer(
        request: Request, annotator: Annotated[Annotator, Depends(annotator_of)]
    ) -> Annotator:
        if not csrf_valid(server_secret, request.state.session, request.headers.get(CSRF_HEADER)):
            raise HTTPException(403, "missing or wrong CSRF token: reload the page")
        return annotator

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> Response:
        if request.url.path.startswith("/api/"):
            return JSONResponse({"detail": error.detail}, status_code=error.status_code)
        return page(request, "error.html.j2", error.status_code, message=error.detail)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: RequestValidationError) -> Response:
        problems = [
            f"{'.'.join(str(p) for p in e['loc'] if p != 'body')}: {e['msg']}"
            for e in error.errors()
        ]
        if request.url.path.startswith("/api/"):
            return JSONResponse({"detail": "; ".join(problems)}, status_code=422)
        return page(request, "error.html.j2", 400, message="; ".join(problems))

    @app.get("/enter")
    def enter(token: Annotated[str, Query(max_length=200)]) -> Response:
        if identify(token, organiser_hash, list(stores.get().records(Annotator))) is None:
            raise HTTPException(403, "this link is not valid (ask the organiser for yours)")
        response = RedirectResponse("/", status_code=303)
        response.set_cookie(COOKIE, token, httponly=True, samesite="strict", path="/")
        return response

    @app.get("/")
    def home(session: Annotated[Session, Depends(session_of)]) -> Response:
        return RedirectResponse("/organiser" if session.is_organiser else "/annotate", 303)

    @app.get("/organiser", dependencies=[Depends(organiser)])
    def organiser_page(request: Request) -> HTMLResponse:
        store = stores.get()
        board = [progress(store, a, settings) for a in store.records(Annotator)]
        report = (run_dir / "report" / "index.html").exists()
        return page(
            request,
            "organiser.html.j2",
            progress=board,
            agreement=agreement_rows(store),
            settings=settings,
            report=report,
            run=str(run_dir),
        )

    @app.get("/dialogues", dependencies=[Depends(organiser)])
    def dialogues(request: Request, filters: Annotated[DialogueFilters, Query()]) -> HTMLResponse:
        found = dialogue_list(stores.get(), filters)
        return page(request, "dialogues.html.j2", found=found, filters=filters)

    @app.get("/dialogues/{dialogue_id}", dependencies=[Depends(organiser)])
    def dialogue(request: Request, dialogue_id: str) -> HTMLResponse:
        view = dialogue_view(stores.get(), dialogue_id)
        if view is None:
            raise HTTPException(404, f"no dialogue {dialogue_id} in this run")
        return page(request, "dialogue.html.j2", view=view, labels=labels)

    @app.get("/report/{path:path}", dependencies=[Depends(organiser)])
    def report_file(path: str) -> FileResponse:
        folder = (run_dir / "report").resolve()
        wanted = (folder / (path or "index.html")).resolve()
        if not wanted.is_relative_to(folder) or not wanted.is_file():
            raise HTTPException(404, f"no report file {path!r} (write it: dialbench report RUN)")
        return FileResponse(wanted)

    @app.get("/annotate")
    def annotate_home(
        request: Request, annotator: Annotated[Annotator, Depends(annotator_of)]
    ) -> HTMLResponse:
        store = stores.get()
        items = assigned_items(store, annotator, settings)
        own = {
            a.target.dialogue_id: a for a in store.records(Annotation, annotator_id=annotator.name)
        }
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
            progress=progress(store, annotator, settings, [i.dialogue_id for i in items]),
        )

    def assigned_position(annotator: Annotator, dialogue_id: str) -> tuple[int, list[str]]:
        order = [i.dialogue_id for i in assigned_items(stores.get(), annotator, settings)]
        if dialogue_id not in order:
            raise HTTPException(404, f"dialogue {dialogue_id} is not among yours")
        return order.index(dialogue_id), order

    @app.get("/annotate/{dialogue_id}")
    def annotate_page(
        request: Request,
        dialogue_id: str,
        annotator: Annotated[Annotator, Depends(annotator_of)],
    ) -> HTMLResponse:
        position, order = assigned_position(annotator, dialogue_id)
        store = stores.get()
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
        return page(
            request,
            "annotate.html.j2",
            dialogue=found,
            annotator=annotator,
            saved=labels_in(mine),
            labels=[(label, SHORTCUT_KEYS[n]) for n, label in enumerate(labels.issues)],
            overall=labels.overall,
            position=position,
            order=order,
            progress=progress(store, annotator, settings, order),
        )

    @app.put("/api/labels/{dialogue_id}")
    def save_labels(
        dialogue_id: str,
        labels_given: LabelsIn,
        annotator: Annotated[Annotator, Depends(writer)],
    ) -> dict[str, Any]:
        _, order = assigned_position(annotator, dialogue_id)
        store = stores.get()
        annotation = labels_given.annotation(annotator, dialogue_id)
        store.add([annotation], serving["run"], on_conflict="replace")
        mine = progress(store, annotator, settings, order)
        return {"saved": annotation.id, "done": mine.done, "assigned": mine.assigned}

    return app
