"""A chatbot service with sessions of its own, for tests: POST /chat with a session id and the
new message. It keeps every session's messages, and acts out faults the message names:

    [[500]] [[429]]   the first request holding it gets that status (429 with Retry-After 0.1)
    [[noreply]]       answers without the reply field
    [[slow]]          answers after 2 s
    [[down]]          every request holding it gets a 500

and, while `fail_from_turn` is set, a session's turn from that one on gets a 500.
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from typing import Any

from aiohttp import web


class BotServer:
    def __init__(self) -> None:
        self.sessions: dict[str, list[str]] = {}
        self.bodies: list[Any] = []
        self.headers: list[dict[str, str]] = []
        self.faults: Counter[str] = Counter()
        self.fail_from_turn: int | None = None
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._runner: web.AppRunner | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/chat"

    async def chat(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.bodies.append(body)
        self.headers.append(dict(request.headers))
        message = str(body.get("message", ""))
        for fault, status in (("[[500]]", 500), ("[[429]]", 429)):
            if fault in message and not self.faults[fault]:
                self.faults[fault] += 1
                return web.json_response(
                    {"detail": "try again"}, status=status, headers={"Retry-After": "0.1"}
                )
        if "[[down]]" in message:
            return web.json_response({"detail": "down"}, status=500)
        if "[[slow]]" in message:
            await asyncio.sleep(2)
        if "[[noreply]]" in message:
            return web.json_response({"status": "thinking", "id": 7})
        history = self.sessions.setdefault(str(body.get("session")), [])
        if self.fail_from_turn is not None and len(history) + 1 >= self.fail_from_turn:
            return web.json_response({"detail": "lost the session"}, status=500)
        history.append(message)
        text = f"Reply {len(history)} in {body.get('language')}"
        return web.json_response({"reply": {"text": text}, "session": body.get("session")})

    def start(self) -> BotServer:
        started = threading.Event()

        async def serve() -> None:
            app = web.Application()
            app.router.add_post("/chat", self.chat)
            self._runner = web.AppRunner(app)
            await self._runner.setup()
            site = web.TCPSite(self._runner, "127.0.0.1", 0)
            await site.start()
            self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
            started.set()

        def run() -> None:
            asyncio.set_event_loop(self._loop)
            self._loop.run_until_complete(serve())
            self._loop.run_forever()

        threading.Thread(target=run, daemon=True).start()
        started.wait(10)
        return self

    def stop(self) -> None:
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
