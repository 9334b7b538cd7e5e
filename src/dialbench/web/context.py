"""What the routes share: the run's store connections, the assignment settings, the templates,
and the dependencies that say who is asking (`session_of`, `organiser`, `annotator_of`,
`writer`). Routes reach it through `request.app.state.context`."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Request
from fastapi.responses import HTMLResponse
from jinja2 import Environment

from dialbench.issue_labels import IssueLabels
from dialbench.schema import Annotator, Invocation
from dialbench.store import RunStore
from dialbench.web.annotate import LiveAgreement
from dialbench.web.annotators import AssignmentSettings
from dialbench.web.auth import COOKIE, CSRF_HEADER, Session, csrf_token, csrf_valid, identify
from dialbench.web.review_task import ReviewTask
from dialbench.web.team import Team, stored_annotators


class Stores:
    """One store connection per server thread (SQLite connections are not shared): WAL lets
    the pages' readers run beside the writer. The app writes from the event loop's thread
    alone, one write at a time, each committed before its response is sent."""

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


@dataclass
class WebContext:
    run_dir: Path
    organiser_hash: str
    settings: AssignmentSettings
    stores: Stores
    server_secret: bytes
    templates: Environment
    labels: IssueLabels
    agreement: LiveAgreement
    review: ReviewTask | None = None  # the judge under review (`serve --review`)
    serving: list[Invocation] = field(default_factory=list)  # the `serve` run, once started

    def store(self) -> RunStore:
        return self.stores.get()

    def annotators(self) -> list[Annotator]:
        return stored_annotators(self.store())

    def team(self, only: list[str] | None = None) -> Team:
        """The annotators as this request finds them, with the labels of `only` these."""
        return Team.read(self.store(), self.settings, only)

    def reviewing(self) -> ReviewTask:
        """The judge under review; 404 on a server that reviews none."""
        if self.review is None:
            raise HTTPException(
                404, "this server reviews no judge (dialbench serve RUN --review PROTOCOL)"
            )
        return self.review

    def review_team(self, only: list[str] | None = None) -> Team:
        """The reviewers as this request finds them, with the reviews of `only` these."""
        return Team.reviewing(self.store(), self.settings, self.reviewing(), only)

    def close(self) -> None:
        self.agreement.close()
        self.stores.close()


def context_of(request: Request) -> WebContext:
    found: WebContext = request.app.state.context
    return found


def page(request: Request, name: str, status: int = 200, **values: Any) -> HTMLResponse:
    """A template rendered (autoescaped) with the session and its CSRF token."""
    context = context_of(request)
    session: Session | None = getattr(request.state, "session", None)
    csrf = csrf_token(context.server_secret, session) if session else ""
    html = context.templates.get_template(name).render(
        session=session, csrf=csrf, reviewing=context.review is not None, **values
    )
    return HTMLResponse(html, status_code=status)


def current_session(request: Request) -> Session | None:
    """Whom the request's cookie signs in, if anyone (a revoked link: no one)."""
    context = context_of(request)
    token = request.cookies.get(COOKIE)
    return identify(token, context.organiser_hash, context.annotators()) if token else None


# The dependencies are coroutines: FastAPI would run each plain function in a worker thread,
# a hand-over that under load costs the event loop more than their work (reading the small
# annotators table, a hash or two).


async def session_of(request: Request) -> Session:
    found = current_session(request)
    if found is None:
        raise HTTPException(401, "open your secret link first: no page without one")
    request.state.session = found
    return found


async def organiser(session: Annotated[Session, Depends(session_of)]) -> Session:
    if not session.is_organiser:
        raise HTTPException(403, "this page is the organiser's")
    return session


async def annotator_of(session: Annotated[Session, Depends(session_of)]) -> Annotator:
    if session.annotator is None:
        raise HTTPException(403, "this page is for annotators: the organiser has /organiser")
    return session.annotator


async def writer(
    request: Request, annotator: Annotated[Annotator, Depends(annotator_of)]
) -> Annotator:
    """An annotator whose write carries the CSRF token of their session."""
    secret = context_of(request).server_secret
    if not csrf_valid(secret, request.state.session, request.headers.get(CSRF_HEADER)):
        raise HTTPException(403, "missing or wrong CSRF token: reload the page")
    return annotator
