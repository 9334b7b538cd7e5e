"""OpenAI's Files and Batch APIs on the loopback server, answered by its own scripted replies.

    POST /v1/files (multipart: purpose, file)     GET /v1/files/{id}/content
    POST /v1/batches                               GET /v1/batches/{id}
    GET /batch-stats  {"files": n, "batches": n, "polls": n, "answered": n (batch lines)}

A batch is `in_progress` until it has been polled `batch_polls` times, then finished: a test
can stop a poller while the batch is surely pending, however slow the machine. Directives in
its input file script the outcome: `[[batch:failed]]` (validation fails), `[[batch:expired]]`
(only the first half is answered), `[[batch:malformed]]` (the second output line is cut off).
A request whose script faults with an HTTP status goes to the error file with that status.
"""

from __future__ import annotations

import itertools
import json
import time
from collections import Counter
from typing import TYPE_CHECKING, Any

from aiohttp import web

if TYPE_CHECKING:
    from loopback_server import LoopbackServer


class BatchAPI:
    def __init__(self, server: LoopbackServer, batch_polls: int) -> None:
        self.server = server
        self.batch_polls = batch_polls
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.polls = 0
        self.answered = 0
        self.ids = itertools.count(1)
        self.polled: Counter[str] = Counter()

    def add_routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/files", self.upload)
        app.router.add_get("/v1/files/{id}/content", self.content)
        app.router.add_post("/v1/batches", self.create)
        app.router.add_get("/v1/batches/{id}", self.retrieve)
        app.router.add_get("/batch-stats", self.stats)

    async def stats(self, _request: web.Request) -> web.Response:
        return web.json_response(
            {
                "files": len(self.files),
                "batches": len(self.batches),
                "polls": self.polls,
                "answered": self.answered,
            }
        )

    def _store(self, content: bytes) -> str:
        file_id = f"file-{next(self.ids)}"
        self.files[file_id] = content
        return file_id

    async def upload(self, request: web.Request) -> web.Response:
        form = await request.post()
        upload = form.get("file")
        if form.get("purpose") != "batch" or not isinstance(upload, web.FileField):
            error = {"message": "need purpose=batch and a file", "type": "invalid_request_error"}
            return web.json_response({"error": error}, status=400)
        content = upload.file.read()
        file_id = self._store(content)
        return web.json_response(
            {
                "id": file_id,
                "object": "file",
                "bytes": len(content),
                "created_at": int(time.time()),
                "filename": upload.filename,
                "purpose": "batch",
            }
        )

    async def content(self, request: web.Request) -> web.Response:
        content = self.files.get(request.match_info["id"])
        if content is None:
            return web.json_response({"error": {"message": "no such file"}}, status=404)
        return web.Response(body=content, content_type="application/jsonl")

    async def create(self, request: web.Request) -> web.Response:
        body = await request.json()
        if body.get("input_file_id") not in self.files:
            return web.json_response({"error": {"message": "no such input file"}}, status=400)
        batch_id = f"batch_{next(self.ids)}"
        batch = self.batches[batch_id] = {
            "id": batch_id,
            "object": "batch",
            "endpoint": body["endpoint"],
            "input_file_id": body["input_file_id"],
            "completion_window": body.get("completion_window", "24h"),
            "status": "in_progress",
            "output_file_id": None,
            "error_file_id": None,
            "errors": None,
            "created_at": int(time.time()),
            "request_counts": {"total": 0, "completed": 0, "failed": 0},
            "metadata": body.get("metadata"),
        }
        return web.json_response(batch)

    async def retrieve(self, request: web.Request) -> web.Response:
        self.polls += 1
        batch = self.batches.get(request.match_info["id"])
        if batch is None:
            return web.json_response({"error": {"message": "no such batch"}}, status=404)
        self.polled[batch["id"]] += 1
        if batch["status"] == "in_progress" and self.polled[batch["id"]] >= self.batch_polls:
            self.finish(batch)
        return web.json_response(batch)

    def finish(self, batch: dict[str, Any]) -> None:
        text = self.files[batch["input_file_id"]].decode()
        lines = [json.loads(line) for line in text.splitlines() if line.strip()]
        if "[[batch:failed]]" in text:
            error = {"code": "invalid_request", "message": "injected validation failure", "line": 1}
            batch.update(status="failed", errors={"object": "list", "data": [error]})
            return
        if "[[batch:expired]]" in text:
            lines = lines[: len(lines) // 2]
        outputs, errors = [], []
        for number, line in enumerate(lines, 1):
            answer = self.answer(line, number)
            failed = answer["response"]["status_code"] != 200
            (errors if failed else outputs).append(json.dumps(answer))
        if "[[batch:malformed]]" in text and len(outputs) > 1:
            outputs[1] = outputs[1][: len(outputs[1]) // 2]
        batch["request_counts"] = {
            "total": len(lines),
            "completed": len(outputs),
            "failed": len(errors),
        }
        if outputs:
            batch["output_file_id"] = self._store("\n".join(outputs).encode() + b"\n")
        if errors:
            batch["error_file_id"] = self._store("\n".join(errors).encode() + b"\n")
        batch["status"] = "expired" if "[[batch:expired]]" in text else "completed"

    def answer(self, line: dict[str, Any], number: int) -> dict[str, Any]:
        body = line["body"]
        chat = line["url"].endswith("/chat/completions")
        if chat:
            messages = body["messages"]
            script = next((m["content"] for m in messages if m["role"] == "user"), "")
            last = messages[-1]["content"]
        else:
            script = last = body["prompt"]
        self.answered += 1
        fault, text = self.server.scripted(script, last)
        if fault is not None and fault.isdigit():
            response = {
                "status_code": int(fault),
                "body": {"error": {"message": f"injected {fault}", "type": "injected"}},
            }
        else:
            response = {"status_code": 200, "body": self.server.completion(body, text, chat=chat)}
        response["request_id"] = f"req-{number}"
        return {
            "id": f"batch_req_{number}",
            "custom_id": line["custom_id"],
            "response": response,
            "error": None,
        }
