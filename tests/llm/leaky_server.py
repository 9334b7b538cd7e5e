"""A loopback HTTP server, in a thread of the test process, that misbehaves as servers do: it
redirects where it is told to, echoes what it was sent (headers and URL) into its errors, and
records every request it gets. Otherwise it answers as an OpenAI-compatible server and as an
`http:` chatbot (reply path `reply.text`) at once."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from aiohttp import web
from loopback_server import LoopbackServer

NOT_ECHOED = {"host", "accept", "accept-encoding", "content-length", "content-type", "user-agent"}


@dataclass
class Received:
    method: str
    path_qs: str
    headers: dict[str, str]
    body: str


@dataclass
class LeakyServer:
    redirects: dict[str, tuple[int, str]] = field(default_factory=dict)
    """Path -> (status, Location) of the redirects it answers."""
    echo_status: int | None = None
    """Answer every other request with this status, its error repeating the headers and URL."""
    echo_padding: int = 0
    """Characters before the echo, which starts with the X-Api-Key header: where an error is cut."""
    received: list[Received] = field(default_factory=list)
    port: int = 0

    def url(self, path: str = "") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    async def handle(self, request: web.Request) -> web.Response:
        body = await request.text()
        self.received.append(Received(request.method, request.path_qs, dict(request.headers), body))
        if request.path in self.redirects:
            status, location = self.redirects[request.path]
            return web.Response(status=status, headers={"Location": location})
        if self.echo_status is not None:
            sent = "; ".join(
                f"{name}: {value}"
                for name, value in request.headers.items()
                if name.lower() not in NOT_ECHOED
            )
            key = request.headers.get("X-Api-Key")
            said = f"{'.' * self.echo_padding}X-Api-Key={key} refused {request.url} with {sent}"
            return web.json_response({"error": {"message": said}}, status=self.echo_status)
        answer = LoopbackServer.completion({"model": "leaky"}, "hello", chat=True)
        return web.json_response(answer | {"reply": {"text": "hello"}})


@contextmanager
def leaky_server() -> Iterator[LeakyServer]:
    """A running server on a free port of its own (its own origin), stopped afterwards."""
    server = LeakyServer()
    loop = asyncio.new_event_loop()
    app = web.Application()
    app.router.add_route("*", "/{path:.*}", server.handle)
    runner = web.AppRunner(app, access_log=None)

    async def start() -> None:
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        server.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    asyncio.run_coroutine_threadsafe(start(), loop).result(10)
    try:
        yield server
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()
