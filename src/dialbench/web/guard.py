"""What every request passes through: a body size limit, the security headers, and a log line
that never holds a query string (where a secret link's token travels)."""

from __future__ import annotations

import logging
import time

from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

MAX_BODY_BYTES = 64 * 1024
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
    here, up to the limit, before the app sees it), adds the security headers (to the 500 of an
    unexpected error too), and logs each request by method, path (never the query string, where
    a secret link's token travels) and status."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started, status, answered = time.perf_counter(), 500, False

        async def secured(message: Message) -> None:
            nonlocal status, answered
            if message["type"] == "http.response.start":
                status, answered = message["status"], True
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
            try:
                await self.app(scope, _replay(body, receive), secured)
            except Exception:  # a 500 with the headers too; uvicorn logs the traceback
                if not answered:
                    failed = {"detail": "internal error (the server's log has the details)"}
                    await JSONResponse(failed, status_code=500)(scope, receive, secured)
                raise
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
