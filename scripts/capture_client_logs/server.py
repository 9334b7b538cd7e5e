"""The loopback server the captures talk to: an OpenAI-compatible model, an OTLP/HTTP receiver
and a Langfuse host, on 127.0.0.1 (stdlib http.server, one thread per connection).

Every path starts with the capture's name, so one server serves all the captures and keeps
what each sent apart:

- `POST /<capture>/v1/chat/completions`: the scripted reply (`conversations.reply_for`), as a
  chat completion or, with `"stream": true`, as server-sent events (`chat.completion.chunk`s,
  a usage chunk when `stream_options.include_usage`, then `data: [DONE]`). Where the capture
  keeps a gateway log, one line per call: `{"request": <body>, "response": <completion>}` (for
  a streamed call the completion its chunks assemble to).
- `POST /<capture>/v1/traces`, `/<capture>/v1/logs` (OTLP/HTTP, protobuf or JSON) and
  `/<capture>/api/public/otel/v1/traces` (where the Langfuse SDK sends its spans): decoded and
  appended as OTLP JSON, one export request per line, as the OpenTelemetry Collector's `file`
  exporter writes it: `{"resourceSpans": [...]}` / `{"resourceLogs": [...]}`, camelCase names,
  trace and span ids in lowercase hex, 64-bit integers as strings, enums as integers.
- anything else: `200 {}`, and noted in `Capture.unhandled`.

Needs opentelemetry-proto (and protobuf) for the OTLP receiver.
"""

from __future__ import annotations

import base64
import gzip
import json
import threading
import zlib
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from conversations import Reply, reply_for

CREATED = 1750000000  # a fixed `created`, so the gateway log is the same on every run


@dataclass
class Capture:
    """Where one capture's traffic goes: its gateway log and its OTLP files, by signal."""

    gateway: Path | None = None
    traces: Path | None = None
    logs: Path | None = None
    calls: int = 0
    exports: int = 0
    unhandled: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)


def completion(request: dict[str, Any]) -> dict[str, Any]:
    """The chat completion the scripted conversation answers `request` with."""
    messages = request.get("messages") or []
    conversation, index, reply = reply_for(messages)
    message: dict[str, Any] = {"role": "assistant", "content": reply.text, "refusal": None}
    if reply.calls:
        message["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments_json},
            }
            for call in reply.calls
        ]
    prompt = sum(_tokens(json.dumps(m, ensure_ascii=False)) for m in messages)
    answer = _tokens(reply.text or "") + sum(_tokens(c.arguments_json) + 5 for c in reply.calls)
    return {
        "id": f"chatcmpl-{conversation.key}-{index + 1}",
        "object": "chat.completion",
        "created": CREATED + 100 * int(conversation.key[1:]) + index,
        "model": str(request.get("model") or "gpt-4o-mini"),
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": "tool_calls" if reply.calls else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": answer,
            "total_tokens": prompt + answer,
        },
        "system_fingerprint": "fp_loopback",
        "service_tier": "default",
    }


def _pieces(text: str, count: int = 3) -> list[str]:
    """`text` cut into `count` pieces at spaces (or anywhere, for CJK text)."""
    if not text:
        return []
    size = max(1, -(-len(text) // count))
    pieces, start = [], 0
    while start < len(text):
        end = min(len(text), start + size)
        space = text.find(" ", end)
        end = space if 0 <= space < start + 2 * size else end
        pieces.append(text[start:end])
        start = end
    return pieces


def chunks(done: dict[str, Any], reply: Reply, include_usage: bool) -> list[dict[str, Any]]:
    """The streamed chunks of the completion `done`."""
    base = {k: done[k] for k in ("id", "created", "model", "system_fingerprint")}
    base |= {"object": "chat.completion.chunk", "service_tier": "default"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return base | {"choices": [choice]}

    found = [chunk({"role": "assistant", "content": "" if reply.text else None, "refusal": None})]
    for piece in _pieces(reply.text or ""):
        found.append(chunk({"content": piece}))
    for number, call in enumerate(reply.calls):
        head = {"index": number, "id": call.id, "type": "function"}
        head["function"] = {"name": call.name, "arguments": ""}
        found.append(chunk({"tool_calls": [head]}))
        for piece in _pieces(call.arguments_json, 2):
            found.append(
                chunk({"tool_calls": [{"index": number, "function": {"arguments": piece}}]})
            )
    found.append(chunk({}, done["choices"][0]["finish_reason"]))
    if include_usage:
        for part in found:
            part["usage"] = None
        found.append(base | {"choices": [], "usage": done["usage"]})
    return found


# --- OTLP ---------------------------------------------------------------------------------

_ID_KEYS = {"traceId", "spanId", "parentSpanId"}


def _hex_ids(value: Any) -> Any:
    """protobuf's JSON writes bytes as base64; OTLP JSON writes trace and span ids as hex."""
    if isinstance(value, dict):
        return {
            k: base64.b64decode(v).hex() if k in _ID_KEYS and isinstance(v, str) else _hex_ids(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_hex_ids(v) for v in value]
    return value


def otlp_json(signal: str, body: bytes, content_type: str) -> tuple[dict[str, Any], bytes]:
    """An OTLP/HTTP export request as the Collector's file exporter writes it, and the
    protobuf response to send back."""
    from google.protobuf import json_format
    from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
    from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

    if signal == "traces":
        request, response = (
            trace_service_pb2.ExportTraceServiceRequest(),
            trace_service_pb2.ExportTraceServiceResponse(),
        )
    else:
        request, response = (
            logs_service_pb2.ExportLogsServiceRequest(),
            logs_service_pb2.ExportLogsServiceResponse(),
        )
    if "json" in content_type:
        # OTLP/JSON already has hex ids; parse it into protobuf to check and normalise it.
        raw = json.loads(body)
        for key in ("resourceSpans", "resourceLogs"):
            for batch in raw.get(key, []):
                for scope in batch.get("scopeSpans", []) + batch.get("scopeLogs", []):
                    for item in scope.get("spans", []) + scope.get("logRecords", []):
                        for id_key in _ID_KEYS & item.keys():
                            item[id_key] = base64.b64encode(bytes.fromhex(item[id_key])).decode()
        json_format.ParseDict(raw, request)
    else:
        request.ParseFromString(body)
    as_dict = json_format.MessageToDict(
        request, preserving_proto_field_name=False, use_integers_for_enums=True
    )
    return _hex_ids(as_dict), response.SerializeToString()


# --- the server ---------------------------------------------------------------------------


class LoopbackServer:
    def __init__(self, port: int = 0) -> None:
        self.captures: dict[str, Capture] = {}
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), _handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> LoopbackServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def add(self, name: str, capture: Capture) -> str:
        """Serve a capture; its base URL (the OpenAI `base_url` is this plus `/v1`)."""
        for path in (capture.gateway, capture.traces, capture.logs):
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text("")
        self.captures[name] = capture
        return f"{self.url}/{name}"

    def append(self, path: Path, record: dict[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
        with self._lock, path.open("a", encoding="utf-8") as out:
            out.write(line + "\n")


def _handler(server: LoopbackServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _body(self) -> bytes:
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                body = b""
                while True:
                    size = int(self.rfile.readline().strip().split(b";")[0], 16)
                    if size == 0:
                        self.rfile.readline()
                        break
                    body += self.rfile.read(size)
                    self.rfile.readline()
            else:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            encoding = self.headers.get("Content-Encoding", "").lower()
            if encoding == "gzip":
                body = gzip.decompress(body)
            elif encoding == "deflate":
                body = zlib.decompress(body)
            return body

        def _send(self, status: int, body: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _json(self, status: int, value: Any) -> None:
            self._send(status, json.dumps(value, ensure_ascii=False).encode(), "application/json")

        def do_GET(self) -> None:
            name, _, rest = self.path.lstrip("/").partition("/")
            capture = server.captures.get(name)
            if capture is not None:
                capture.unhandled.append(f"GET /{rest}")
            self._json(200, {})

        def do_POST(self) -> None:
            body = self._body()
            name, _, rest = self.path.lstrip("/").partition("/")
            rest = "/" + rest.split("?")[0]
            capture = server.captures.get(name)
            if capture is None:
                self._json(404, {"error": {"message": f"no capture {name!r}"}})
                return
            try:
                if rest.endswith("/chat/completions"):
                    self._chat(capture, json.loads(body))
                elif rest in ("/v1/traces", "/api/public/otel/v1/traces", "/v1/logs"):
                    self._otlp(capture, "logs" if rest == "/v1/logs" else "traces", body)
                else:
                    capture.unhandled.append(f"POST {rest}")
                    self._json(200, {})
            except Exception as error:  # reported by the capture, not swallowed
                capture.errors.append(f"{rest}: {type(error).__name__}: {error}")
                self._json(500, {"error": {"message": str(error), "type": "loopback_error"}})

        def _chat(self, capture: Capture, request: dict[str, Any]) -> None:
            done = completion(request)
            capture.calls += 1
            if capture.gateway is not None:
                server.append(capture.gateway, {"request": request, "response": done})
            if not request.get("stream"):
                self._json(200, done)
                return
            _, _, reply = reply_for(request["messages"])
            usage = bool((request.get("stream_options") or {}).get("include_usage"))
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream; charset=utf-8")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            for part in chunks(done, reply, usage):
                data = json.dumps(part, ensure_ascii=False)
                self.wfile.write(f"data: {data}\n\n".encode())
                self.wfile.flush()
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
            self.close_connection = True

        def _otlp(self, capture: Capture, signal: str, body: bytes) -> None:
            content_type = self.headers.get("Content-Type", "application/x-protobuf")
            record, response = otlp_json(signal, body, content_type)
            path = capture.traces if signal == "traces" else capture.logs
            capture.exports += 1
            if path is not None and record:
                server.append(path, record)
            if "json" in content_type:
                self._json(200, {})
            else:
                self._send(200, response, "application/x-protobuf")

    return Handler
