"""A loopback OpenAI-compatible server that injects faults, for tests and benchmarks.

Run: python loopback_server.py [--latency SECONDS] [--failure-rate P] [--batch-polls N];
it binds 127.0.0.1 on a free port and prints the port. `--failure-rate` answers that fraction of
calls 503 (a failing replica). Replies echo the last message. Directives in the first user
message (or the prompt) script behaviour per conversation, so a re-ask of the same conversation
continues the script:

    [[fault:429,500,timeout,truncated,badjson,400]]  the n-th request gets the n-th fault, then ok
    [[replies:A||B]]                                  the n-th request gets reply n (last repeats)

The models `takes-json-object` and `takes-text` refuse the response formats llama_cpp.server
and plainer servers refuse, with llama_cpp.server's HTTP 500.

A chat request with `tools` is answered with a call to its first tool, `{"echo": <the last
message>}` as arguments, until its last message is a tool's result, which is echoed as text.
The model `arguments-as-object` sends the call as some servers do: no id, arguments an object.

GET /stats returns {"requests": n, "last_body": {...}, "last_headers": {...}, "max_in_flight": n,
"in_flight": n, "repeated": n, "last_answer_at": t}: requests received, the last chat request and
its headers, the most calls it ever held at once, those it holds now, answers given to a request
body it had already answered, and when it gave its last answer (`time.time()`, null before any), so
a benchmark can time a command's calls from outside it.
POST /hold makes new requests wait (uncounted) until POST /release; a waiting request
whose client went away meanwhile is dropped unanswered, so a test can kill a client cleanly.

It also serves OpenAI's Files and Batch APIs (`batch_api.py`): a batch's lines are answered as
calls would be, when it is polled the N-th time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import random
import re
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from typing import Any

from aiohttp import web

from dialbench.schema import Dialogue, Turn

DIRECTIVE = re.compile(r"\[\[(fault|replies):(.*?)\]\]", re.DOTALL)
REASONING_MODEL = re.compile(r"^(o\d|gpt-5)")
REJECTED_BY_REASONING_MODELS = ("temperature", "top_p", "stop", "logprobs", "max_tokens")


class LoopbackServer:
    def __init__(self, latency_s: float, failure_rate: float = 0.0) -> None:
        self.latency_s = latency_s
        self.failure_rate = failure_rate
        self.random = random.Random(0)
        self.in_flight = 0
        self.max_in_flight = 0
        self.requests = 0
        self.last_body: dict[str, Any] = {}
        self.last_headers: dict[str, str] = {}
        self.seen: Counter[str] = Counter()
        self.answered: Counter[str] = Counter()
        self.last_answer_at: float | None = None
        self.open = asyncio.Event()
        self.open.set()

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self.chat)
        app.router.add_post("/v1/completions", self.complete)
        app.router.add_get("/stats", self.stats)
        app.router.add_post("/hold", self.hold)
        app.router.add_post("/release", self.release)
        return app

    async def hold(self, _request: web.Request) -> web.Response:
        self.open.clear()
        return web.json_response({})

    async def release(self, _request: web.Request) -> web.Response:
        self.open.set()
        return web.json_response({})

    async def stats(self, _request: web.Request) -> web.Response:
        return web.json_response(
            {
                "requests": self.requests,
                "last_body": self.last_body,
                "last_headers": self.last_headers,
                "max_in_flight": self.max_in_flight,
                "in_flight": self.in_flight,
                "repeated": sum(n - 1 for n in self.answered.values()),
                "last_answer_at": self.last_answer_at,
            }
        )

    async def chat(self, request: web.Request) -> web.StreamResponse:
        body = self.last_body = await request.json()
        self.last_headers = dict(request.headers)
        rejected = [p for p in REJECTED_BY_REASONING_MODELS if p in body]
        if REASONING_MODEL.match(body["model"]) and rejected:
            error = {"message": f"Unsupported parameter: {rejected[0]}", "type": "invalid"}
            return web.json_response({"error": error}, status=400)
        if refused := self.refused_format(body):
            detail = f"Input should be {refused}"  # llama_cpp.server's words
            if refused == "'text'":
                detail = f"response_format: {detail}"
            return web.json_response({"error": {"message": detail}}, status=500)
        messages = body["messages"]
        first = next((m["content"] for m in messages if m["role"] == "user"), "")
        return await self.answer(request, body, first, messages[-1]["content"], chat=True)

    @staticmethod
    def refused_format(body: dict[str, Any]) -> str | None:
        """What a server that takes fewer response formats says of this one, if it refuses it."""
        taken = {"takes-json-object": ("text", "json_object"), "takes-text": ("text",)}
        kind = body.get("response_format", {}).get("type", "text")
        allowed = taken.get(body["model"])
        if allowed is None or kind in allowed:
            return None
        return " or ".join(f"'{a}'" for a in allowed)

    async def complete(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        return await self.answer(request, body, body["prompt"], body["prompt"], chat=False)

    async def answer(
        self, request: web.Request, body: dict[str, Any], script: str, last: str, *, chat: bool
    ) -> web.StreamResponse:
        await self.open.wait()
        if request.transport is None or request.transport.is_closing():
            return web.Response(status=499)  # its client is gone: nobody to answer
        self.requests += 1
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.latency_s:
                await asyncio.sleep(self.latency_s)
        finally:
            self.in_flight -= 1
        if self.random.random() < self.failure_rate:
            return await self.fault(request, "503")
        fault, text = self.scripted(script, last)
        if fault is not None and (response := await self.fault(request, fault)) is not None:
            return response
        self.answered[json.dumps(body, sort_keys=True)] += 1
        self.last_answer_at = time.time()
        return web.json_response(self.completion(body, text, chat=chat))

    def scripted(self, script: str, last: str) -> tuple[str | None, str]:
        """This turn of the conversation's script: its fault, if any, and its reply."""
        turn = self.seen[script]
        self.seen[script] += 1
        directives = dict(DIRECTIVE.findall(script))
        faults = directives.get("fault", "").split(",") if "fault" in directives else []
        replies = directives["replies"].split("||") if "replies" in directives else []
        text = replies[min(turn, len(replies) - 1)] if replies else f"echo: {last}"
        return (faults[turn] if turn < len(faults) else None), text

    async def fault(self, request: web.Request, fault: str) -> web.StreamResponse | None:
        if fault == "ok":
            return None
        if fault == "timeout":
            await asyncio.sleep(30)
        if fault == "truncated":
            response = web.StreamResponse(headers={"Content-Length": "1000"})
            response.content_type = "application/json"
            await response.prepare(request)
            await response.write(b'{"id": "cut-off')
            assert request.transport is not None
            request.transport.close()
            return response
        if fault == "badjson":
            return web.Response(text='{"id": "x", "choices": [', content_type="application/json")
        headers = {"Retry-After": "1"} if fault == "429" else {}
        error = {"error": {"message": f"injected {fault}", "type": "injected", "code": fault}}
        return web.json_response(error, status=int(fault), headers=headers)

    @staticmethod
    def completion(body: dict[str, Any], text: str, *, chat: bool) -> dict[str, Any]:
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        top = [("yes", math.log(0.8)), ("no", math.log(0.15)), ("maybe", math.log(0.05))]
        if chat:
            logprobs = None
            if body.get("logprobs"):
                options = [{"token": t, "logprob": lp, "bytes": None} for t, lp in top]
                logprobs = {
                    "content": [
                        {
                            "token": "yes",
                            "logprob": top[0][1],
                            "bytes": None,
                            "top_logprobs": options,
                        }
                    ]
                }
            choice: dict[str, Any] = {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
                "logprobs": logprobs,
            }
            if body.get("tools") and body["messages"][-1]["role"] != "tool":
                choice |= {"message": tool_call(body), "finish_reason": "tool_calls"}
            kind = "chat.completion"
        else:
            choice = {"index": 0, "text": text, "finish_reason": "stop", "logprobs": None}
            kind = "text_completion"
        return {
            "id": "loopback",
            "object": kind,
            "created": 0,
            "model": body["model"],
            "choices": [choice],
            "usage": usage,
        }


def tool_call(body: dict[str, Any]) -> dict[str, Any]:
    """An assistant message calling the request's first tool with the last message's text,
    with an `index` beside the call's fields, as some servers write one."""
    echoed = {"echo": body["messages"][-1]["content"]}
    as_object = body["model"] == "arguments-as-object"
    name = body["tools"][0]["function"]["name"]
    arguments = echoed if as_object else json.dumps(echoed, ensure_ascii=False)
    call: dict[str, Any] = {"index": 0, "type": "function"}
    call["function"] = {"name": name, "arguments": arguments}
    if not as_object:
        call["id"] = "call_loopback"
    return {"role": "assistant", "content": None, "tool_calls": [call]}


async def serve(latency_s: float, failure_rate: float, batch_polls: int) -> None:
    from batch_api import BatchAPI  # beside this file, which runs as a script: not a package

    loopback = LoopbackServer(latency_s, failure_rate)
    app = loopback.app()
    BatchAPI(loopback, batch_polls).add_routes(app)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, backlog=1024)
    await site.start()
    server = site._server
    assert server is not None
    port = server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    print(port, flush=True)
    await asyncio.Event().wait()


class Loopback:
    """A running loopback server, seen from a test or a benchmark."""

    def __init__(self, process: subprocess.Popen[str], port: int) -> None:
        self.process = process
        self.port = port
        self.base_url = f"http://127.0.0.1:{port}/v1"
        self.offset = 0

    def spec(self, model: str = "loopback") -> str:
        return f"openai-compat:{self.base_url}#{model}"

    def stats(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/stats") as reply:
            stats: dict[str, Any] = json.load(reply)
        return stats

    def hold(self, held: bool = True) -> None:
        """Hold new requests (`held`), or let them through."""
        path = "hold" if held else "release"
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}/{path}", method="POST")
        with urllib.request.urlopen(request):
            pass

    def requests(self) -> int:
        """Requests received since the test started."""
        return int(self.stats()["requests"]) - self.offset

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


HOLISTIC_ANSWER = json.dumps({"reason": "answers the question", "quality": 1})


def answered_dialogues(
    count: int, language: str = "en", answer: str = HOLISTIC_ANSWER
) -> list[Dialogue]:
    """Dialogues whose first turn tells this server what a judge answers (a valid holistic
    judgment by default); each differs, so no call is answered from another's cache entry."""
    return [
        Dialogue(
            language=language,
            turns=[
                Turn(role="user", text=f"question {i} [[replies:{answer}]]"),
                Turn(role="assistant", text=f"answer {i}"),
            ],
        )
        for i in range(count)
    ]


def start_loopback(
    latency_s: float = 0.0, *, failure_rate: float = 0.0, batch_polls: int = 1
) -> Loopback:
    """Run the server in its own process (so it has its own core) and wait for its port."""
    options = ["--latency", str(latency_s), "--failure-rate", str(failure_rate)]
    process = subprocess.Popen(
        [sys.executable, __file__, *options, "--batch-polls", str(batch_polls)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    return Loopback(process, int(process.stdout.readline()))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--failure-rate", type=float, default=0.0)
    parser.add_argument("--batch-polls", type=int, default=1)
    arguments = parser.parse_args()
    asyncio.run(serve(arguments.latency, arguments.failure_rate, arguments.batch_polls))
