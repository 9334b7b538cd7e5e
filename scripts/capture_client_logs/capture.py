"""Capture real chatbot logs from real client libraries, as fixtures for `dialbench import`.

Usage (from the repository root; the captures need the pinned libraries, not dialbench):

    python3 -m venv /tmp/capture
    /tmp/capture/bin/pip install -r scripts/capture_client_logs/requirements.txt
    /tmp/capture/bin/python scripts/capture_client_logs/capture.py tests/io/captures

    # the fixtures in tests/io/captures were written with a fixed port (it shows in the spans'
    # URLs), so a re-capture differs from them only in timestamps and ids:
    /tmp/capture/bin/python scripts/capture_client_logs/capture.py tests/io/captures --port 47321

    # only some captures, by name (see CAPTURES below):
    /tmp/capture/bin/python scripts/capture_client_logs/capture.py tests/io/captures \
        --only litellm litellm_session

It starts the loopback server of `server.py` (an OpenAI-compatible model, an OTLP/HTTP
receiver and a Langfuse host on 127.0.0.1, nothing else is reached), then runs each capture in
a fresh subprocess of this same script (`--child NAME`: the instrumentations patch openai
globally), each replaying the same eight conversations of `conversations.py` through the chat
app of `app.py`, and writes one file per capture into the output folder. The conversations'
content, tool-call ids and order are the same on every run; timestamps and trace/span ids are
not. Each capture's stderr (the libraries' warnings) and what the server saw are printed.

Captures (file: library, setting):

- gateway.jsonl: plain openai SDK; the server's own log, `{"request", "response"}` per call
- litellm.jsonl, litellm_session.jsonl: `litellm.completion` with a CustomLogger writing
  `kwargs["standard_logging_object"]` (less `model_map_information.model_map_value`, the
  model's ~9 KB cost-map entry); the second passes `litellm_session_id`
- otel_genai_spans.jsonl: opentelemetry-instrumentation-openai-v2, latest experimental
  conventions, content `span_only`
- otel_genai_spans_conversation.jsonl: the same, each user turn inside a util-genai
  `invoke_local_agent` span whose `conversation_id` is set
- otel_genai_events.jsonl (+ otel_genai_events_traces.jsonl): the same with `event_only`:
  the log records (content), and the spans of that run (no content)
- collector_mixed.jsonl: the same with `span_and_event`, traces and logs in one file as one
  Collector `file` exporter in a traces and a logs pipeline writes them
- openllmetry_spans.jsonl, openllmetry_logs.jsonl: Traceloop's opentelemetry-instrumentation-
  openai, default (`use_attributes=True`) and `use_attributes=False` (log records; its spans
  in openllmetry_logs_traces.jsonl)
- openinference.jsonl, openinference_genai.jsonl, openinference_session.jsonl:
  openinference-instrumentation-openai, default, `OPENINFERENCE_ENABLE_GENAI_SEMCONV=true`,
  and `using_session(conversation id)`
- langfuse_otlp.jsonl: the Langfuse SDK (`langfuse.openai` drop-in, one observation per user
  turn, `propagate_attributes(session_id=...)` per conversation) exporting to the loopback
  server as its host; OTLP JSON of what it POSTed to /api/public/otel/v1/traces
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from app import converse_all  # noqa: E402
from conversations import MODEL, Conversation, UserTurn  # noqa: E402

OFFICIAL_LATEST = {"OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental"}


@dataclass(frozen=True)
class Spec:
    child: str  # the function below that runs in the subprocess
    gateway: str | None = None
    traces: str | None = None
    logs: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    args: dict[str, Any] = field(default_factory=dict)
    keep: bool = True  # False: a check whose files go to a temporary folder


CAPTURES: dict[str, Spec] = {
    "gateway": Spec("plain_openai", gateway="gateway.jsonl"),
    "litellm": Spec("litellm_logger", args={"out": "litellm.jsonl", "session": False}),
    "litellm_session": Spec(
        "litellm_logger", args={"out": "litellm_session.jsonl", "session": True}
    ),
    "otel_genai_spans": Spec(
        "official",
        traces="otel_genai_spans.jsonl",
        env=OFFICIAL_LATEST | {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "span_only"},
    ),
    "otel_genai_spans_conversation": Spec(
        "official",
        traces="otel_genai_spans_conversation.jsonl",
        env=OFFICIAL_LATEST | {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "span_only"},
        args={"conversation_id": True},
    ),
    "otel_genai_true": Spec(
        "official",
        traces="otel_genai_true.jsonl",
        env=OFFICIAL_LATEST | {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true"},
        args={"only": "c8"},
        keep=False,
    ),
    "otel_genai_events": Spec(
        "official",
        traces="otel_genai_events_traces.jsonl",
        logs="otel_genai_events.jsonl",
        env=OFFICIAL_LATEST | {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "event_only"},
    ),
    "collector_mixed": Spec(
        "official",
        traces="collector_mixed.jsonl",
        logs="collector_mixed.jsonl",
        env=OFFICIAL_LATEST
        | {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "span_and_event"},
    ),
    "openllmetry_spans": Spec(
        "openllmetry", traces="openllmetry_spans.jsonl", args={"use_attributes": True}
    ),
    "openllmetry_logs": Spec(
        "openllmetry",
        traces="openllmetry_logs_traces.jsonl",
        logs="openllmetry_logs.jsonl",
        args={"use_attributes": False},
    ),
    "openinference": Spec("openinference", traces="openinference.jsonl"),
    "openinference_genai": Spec(
        "openinference",
        traces="openinference_genai.jsonl",
        env={"OPENINFERENCE_ENABLE_GENAI_SEMCONV": "true"},
    ),
    "openinference_session": Spec(
        "openinference", traces="openinference_session.jsonl", args={"session": True}
    ),
    "langfuse_otlp": Spec("langfuse_sdk", traces="langfuse_otlp.jsonl"),
}


# --- the parent: the server and one subprocess per capture ------------------------------------


def _run(name: str, spec: Spec, out: Path, server: Any, scratch: Path) -> bool:
    from server import Capture

    folder = out if spec.keep else scratch
    capture = Capture(
        gateway=folder / spec.gateway if spec.gateway else None,
        traces=folder / spec.traces if spec.traces else None,
        logs=folder / spec.logs if spec.logs else None,
    )
    base = server.add(name, capture)
    env = os.environ | spec.env
    env |= {
        "CAPTURE_BASE": base,
        "CAPTURE_ARGS": json.dumps(spec.args | {"folder": str(folder)}),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "PYTHONHASHSEED": "0",
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }
    for key in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OTEL_EXPORTER_OTLP_ENDPOINT"):
        env.pop(key, None)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", name],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    took = time.monotonic() - started
    ok = done.returncode == 0 and not capture.errors
    files = [capture.gateway, capture.traces, capture.logs, *_written(spec, folder)]
    sizes = ", ".join(
        f"{p.name} {p.stat().st_size // 1024} KB" for p in dict.fromkeys(files) if p and p.exists()
    )
    print(f"== {name}: {'ok' if ok else 'FAILED'} (rc {done.returncode}, {took:.1f} s) {sizes}")
    print(f"   chat calls {capture.calls}, OTLP exports {capture.exports}")
    for line in capture.unhandled:
        print(f"   unhandled: {line}")
    for line in capture.errors:
        print(f"   server error: {line}")
    for line in (done.stdout + done.stderr).strip().splitlines()[-40:]:
        print(f"   | {line}")
    return ok


def _written(spec: Spec, folder: Path) -> list[Path]:
    return [folder / spec.args["out"]] if "out" in spec.args else []


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, nargs="?", help="the folder to write the captures into")
    parser.add_argument("--only", nargs="*", choices=sorted(CAPTURES), help="these captures")
    parser.add_argument(
        "--port", type=int, default=0, help="the loopback server's port (default: any free one)"
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.child:
        spec = CAPTURES[options.child]
        CHILDREN[spec.child](os.environ["CAPTURE_BASE"], **json.loads(os.environ["CAPTURE_ARGS"]))
        return 0
    if options.out is None:
        parser.error("the output folder is required")
    from server import LoopbackServer

    options.out.mkdir(parents=True, exist_ok=True)
    server = LoopbackServer(options.port).start()
    failed = []
    try:
        with tempfile.TemporaryDirectory() as scratch:
            for name in options.only or CAPTURES:
                if not _run(name, CAPTURES[name], options.out, server, Path(scratch)):
                    failed.append(name)
    finally:
        server.stop()
    if failed:
        print(f"failed: {', '.join(failed)}")
    return 1 if failed else 0


# --- the children: one library each ---------------------------------------------------------


def _openai_client(base: str, client_class: Any = None) -> Any:
    if client_class is None:
        from openai import OpenAI as client_class
    return client_class(base_url=f"{base}/v1", api_key="sk-loopback", max_retries=0)


def _only(conversation_key: str | None) -> Callable[..., Any]:
    """converse_all, or one conversation of it."""
    from app import converse
    from conversations import BY_KEY

    if conversation_key is None:
        return converse_all
    return lambda create, around=None, **options: [
        converse(create, BY_KEY[conversation_key], **options)
    ]


def plain_openai(base: str, folder: str) -> None:
    client = _openai_client(base)
    converse_all(client.chat.completions.create)


def litellm_logger(base: str, folder: str, out: str, session: bool) -> None:
    import litellm
    from litellm.integrations.custom_logger import CustomLogger

    path = Path(folder) / out
    path.write_text("")
    lock = threading.Lock()
    logged = {"success": 0, "failure": 0}

    class StandardLoggingFile(CustomLogger):
        def _write(self, kind: str, kwargs: dict[str, Any]) -> None:
            logged_call = dict(kwargs.get("standard_logging_object") or {})
            # The one change: litellm's cost-map entry for the model (~9 KB, the same on every
            # line) is dropped, as litellm itself writes it for a model not in its map.
            info = logged_call.get("model_map_information")
            if isinstance(info, dict) and info.get("model_map_value") is not None:
                logged_call["model_map_information"] = info | {"model_map_value": None}
            line = json.dumps(logged_call, ensure_ascii=False, default=str)
            with lock, path.open("a", encoding="utf-8") as file:
                file.write(line + "\n")
                logged[kind] += 1

        def log_success_event(self, kwargs, response_obj, start_time, end_time):
            self._write("success", kwargs)

        def log_failure_event(self, kwargs, response_obj, start_time, end_time):
            self._write("failure", kwargs)

    litellm.callbacks = [StandardLoggingFile()]
    calls = {"made": 0}

    def create(**kwargs: Any) -> Any:
        calls["made"] += 1
        model = kwargs.pop("model")
        return litellm.completion(
            model=f"openai/{model}", api_base=f"{base}/v1", api_key="sk-loopback", **kwargs
        )

    def wait_for_log() -> None:
        # litellm logs a sync call from a worker thread: wait for it, so the lines keep order.
        deadline = time.monotonic() + 20
        while logged["success"] + logged["failure"] < calls["made"]:
            if time.monotonic() > deadline:
                raise RuntimeError(f"litellm logged {logged} of {calls['made']} calls")
            time.sleep(0.01)

    def extra(conversation: Conversation) -> dict[str, Any]:
        return {"litellm_session_id": conversation.id} if session else {}

    converse_all(create, extra=extra, after_call=wait_for_log)
    if logged["failure"]:
        raise RuntimeError(f"litellm logged {logged['failure']} failures")


@contextlib.contextmanager
def _otel(service: str, base: str) -> Iterator[tuple[Any, Any]]:
    """Global tracer and logger providers exporting each span and log record as it ends, over
    OTLP/HTTP protobuf to the loopback server (so the order of the lines is the same on every
    run); shut down, so everything is sent, on the way out."""
    from opentelemetry import _logs, trace
    from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    resource = Resource.create({"service.name": service, "deployment.environment": "capture"})
    tracer_provider = TracerProvider(resource=resource)
    tracer_provider.add_span_processor(
        SimpleSpanProcessor(OTLPSpanExporter(endpoint=f"{base}/v1/traces"))
    )
    logger_provider = LoggerProvider(resource=resource)
    logger_provider.add_log_record_processor(
        SimpleLogRecordProcessor(OTLPLogExporter(endpoint=f"{base}/v1/logs"))
    )
    trace.set_tracer_provider(tracer_provider)
    _logs.set_logger_provider(logger_provider)
    try:
        yield tracer_provider, logger_provider
    finally:
        tracer_provider.shutdown()
        logger_provider.shutdown()


def official(
    base: str, folder: str, conversation_id: bool = False, only: str | None = None
) -> None:
    from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

    with _otel("support-chatbot", base) as (tracer_provider, logger_provider):
        OpenAIInstrumentor().instrument(
            tracer_provider=tracer_provider, logger_provider=logger_provider
        )
        client = _openai_client(base)
        around_turn = None
        if conversation_id:
            # util-genai 1.1b0 (what openai-v2 2.4b0 runs with) sets gen_ai.conversation.id
            # on an agent invocation only, not on the chat spans inside it.
            from opentelemetry.util.genai.handler import TelemetryHandler

            handler = TelemetryHandler(
                tracer_provider=tracer_provider, logger_provider=logger_provider
            )

            @contextlib.contextmanager
            def around_turn(
                conversation: Conversation, turn: UserTurn, answer: Callable[[], str]
            ) -> Iterator[None]:
                with handler.invoke_local_agent(
                    request_model=MODEL, agent_name="support-chatbot"
                ) as agent:
                    agent.conversation_id = conversation.id
                    yield

        _only(only)(client.chat.completions.create, around_turn=around_turn)


def openllmetry(base: str, folder: str, use_attributes: bool) -> None:
    from opentelemetry.instrumentation.openai import OpenAIInstrumentor

    with _otel("support-chatbot", base) as (tracer_provider, logger_provider):
        OpenAIInstrumentor(use_attributes=use_attributes).instrument(
            tracer_provider=tracer_provider, logger_provider=logger_provider
        )
        client = _openai_client(base)
        converse_all(client.chat.completions.create)


def openinference(base: str, folder: str, session: bool = False) -> None:
    from openinference.instrumentation import using_session
    from openinference.instrumentation.openai import OpenAIInstrumentor

    with _otel("support-chatbot", base) as (tracer_provider, _):
        OpenAIInstrumentor().instrument(tracer_provider=tracer_provider)
        client = _openai_client(base)
        around = (lambda c: using_session(c.id)) if session else None
        converse_all(client.chat.completions.create, around=around)


def langfuse_sdk(base: str, folder: str) -> None:
    from langfuse import Langfuse, propagate_attributes

    langfuse = Langfuse(
        public_key="pk-lf-loopback",
        secret_key="sk-lf-loopback",
        host=base,
        flush_at=512,
        flush_interval=60,
    )
    from langfuse.openai import OpenAI

    client = _openai_client(base, OpenAI)

    def around(conversation: Conversation) -> Any:
        return propagate_attributes(session_id=conversation.id)

    @contextlib.contextmanager
    def around_turn(
        conversation: Conversation, turn: UserTurn, answer: Callable[[], str]
    ) -> Iterator[None]:
        with langfuse.start_as_current_observation(
            as_type="span", name="chat-turn", input=turn.text
        ) as span:
            yield
            span.update(output=answer())

    converse_all(client.chat.completions.create, around=around, around_turn=around_turn)
    langfuse.flush()
    langfuse.shutdown()


CHILDREN: dict[str, Callable[..., None]] = {
    "plain_openai": plain_openai,
    "litellm_logger": litellm_logger,
    "official": official,
    "openllmetry": openllmetry,
    "openinference": openinference,
    "langfuse_sdk": langfuse_sdk,
}

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
