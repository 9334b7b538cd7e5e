"""`dialbench import` and `dialbench sample` on a large generated log, each as its own process.

Writes a multilingual log (en, zh, de, fr, pt, es, ja) of about `--turns` turns in one of the
formats `import` reads, shaped like production traffic: conversations of one to six exchanges,
one exchange in ten with a tool call (its name, arguments and result), 50 conversations going on
at a time, interleaved, and 2% of those logged in three entries or more coming back after the
readers' quiet window (a user back hours later); one user turn in ten leaves an e-mail address,
which the production formats redact on import. No production format names the language.

- `jsonl` (dialbench's records) and `openai-log` (one chat-completions call a line, as proxies
  log them): most conversations logged once, 5% twice (an identical repeat), 20% once per
  exchange, each call sending the conversation so far.
- `otel-genai`: the collector's file exporter, one ExportTraceServiceRequest a line, a batch of
  20 to 200 spans in the order they ended (a trace's spans now and then split between two): per
  exchange a trace of an `invoke_agent` span, its `chat` spans (v1.37+ `gen_ai.input.messages`:
  the whole history) and an `execute_tool` span, named by `gen_ai.conversation.id`.
- `langfuse`: the public API's traces with their observations, one a line: the exchange as the
  trace's input and output, GENERATION observations holding the history, a TOOL observation,
  the conversation as `sessionId`.
- `langsmith`: `Client.list_runs`, one run a line: the root chain run (the exchange), its llm
  runs (OpenAI messages) and tool run, the thread as `thread_id` in `extra.metadata`.
In the trace formats every exchange is a trace, and 5% of conversations are exported twice.
A turn counts each time a record carries it: a history sent again counts again.

Then runs the real commands, process start to exit, and prints turns per second, the peak
resident memory of that process (its own rusage, from wait4), and the size of the store; the
floor is the same import of a log of 100 turns (for the production formats, it loads the
language detector's models). Run it at two sizes to see that memory does not grow with the file.
Usage: .venv/bin/python benchmarks/import_large.py [--turns 1000000] [--format jsonl]
       [--sample-size 2000] [--keep FOLDER]
"""

from __future__ import annotations

import argparse
import hashlib
import heapq
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from dialbench.io.conversation import QUIET_RECORDS

DIALBENCH = Path(sys.executable).with_name("dialbench")

# Per language: a user's question and a chatbot's answer, filled with a topic and a number.
PHRASES = {
    "en": ("Could you tell me more about {t}, point {n}?", "Sure: {t} matters because of {n}."),
    "zh": ("你能多讲讲{t}吗？第{n}点。", "当然：{t}很重要，原因是第{n}点。"),
    "de": ("Kannst du mir mehr über {t} sagen, Punkt {n}?", "Gern: {t} zählt wegen {n}."),
    "fr": ("Peux-tu m'en dire plus sur {t}, point {n} ?", "Bien sûr : {t} compte pour {n}."),
    "pt": ("Podes dizer-me mais sobre {t}, ponto {n}?", "Claro: {t} importa por causa de {n}."),
    "es": ("¿Me cuentas más sobre {t}, punto {n}?", "Claro: {t} importa por {n}."),
    "ja": ("{t}についてもっと教えてください。{n}番目です。", "はい、{t}は{n}の理由で大切です。"),
}
TOPICS = {
    "en": ("trains", "tax forms", "recipes", "refunds", "passwords", "weather", "invoices"),
    "zh": ("火车", "税表", "菜谱", "退款", "密码", "天气", "发票"),
    "de": ("Züge", "Steuerformulare", "Rezepte", "Erstattungen", "Passwörter", "Wetter"),
    "fr": ("les trains", "les impôts", "les recettes", "les remboursements", "la météo"),
    "pt": ("os comboios", "os impostos", "as receitas", "os reembolsos", "o tempo"),
    "es": ("los trenes", "los impuestos", "las recetas", "los reembolsos", "el tiempo"),
    "ja": ("電車", "税金の書類", "レシピ", "返金", "パスワード", "天気"),
}
TOOLS = ("order_status", "store_hours", "search_help")
SYSTEM_PROMPT = "You are the support assistant of Example Corp. Answer in the user's language."
MODEL, SERVED = "gpt-4o-mini", "gpt-4o-mini-2024-07-18"  # asked for, and what answered
EPOCH = datetime(2025, 6, 14, tzinfo=UTC).timestamp()

TOOL_SHARE = 0.1  # exchanges in which the chatbot calls a tool before it answers
REPEATED_SHARE = 0.05  # conversations logged twice, identically
PER_CALL_SHARE = 0.2  # call logs: conversations logged once per call, every exchange's history
CONCURRENT = 50  # conversations going on at a time, their entries interleaved
RETURN_SHARE = 0.02  # conversations of three entries or more whose second half comes back...
RETURN_AFTER = QUIET_RECORDS + 2_000  # ... this many entries later: past the readers' window


def conversation(rng: random.Random, number: int) -> dict[str, Any]:
    language = rng.choice(list(PHRASES))
    ask, answer = PHRASES[language]
    turns: list[dict[str, Any]] = []
    for exchange in range(rng.randint(1, 6)):
        topic = rng.choice(TOPICS[language])
        filler = " ".join(rng.choice(TOPICS[language]) for _ in range(rng.randint(0, 12)))
        n = f"{number}.{exchange}"
        contact = f" Mail: user{number}@example.com" if rng.random() < 0.1 else ""
        turns.append({"role": "user", "text": ask.format(t=topic, n=n) + contact})
        if rng.random() < TOOL_SHARE:
            arguments = {"topic": topic, "reference": n}
            result = {"reference": n, "status": "open", "topic": topic}
            call = {"name": rng.choice(TOOLS), "arguments": arguments, "call_id": f"call_{n}"}
            turns.append(
                {"role": "tool", "text": json.dumps(result, ensure_ascii=False), "tool": call}
            )
        turns.append({"role": "assistant", "text": answer.format(t=topic, n=n) + " " + filler})
    about = {"conversation_id": f"c{number}"}
    return {"language": language, "source": "benchmark", "turns": turns, "metadata": about}


def every_exchange(whole: dict[str, Any]) -> list[dict[str, Any]]:
    """The conversation as each exchange logs it: the history so far, shortest first."""
    ends = [end for end, turn in enumerate(whole["turns"], start=1) if turn["role"] == "assistant"]
    return [{**whole, "turns": whole["turns"][:end]} for end in ends]


def entries_of(
    rng: random.Random, whole: dict[str, Any], per_exchange: bool
) -> list[dict[str, Any]]:
    """How a conversation is logged: in trace formats every exchange is a trace; a call log
    holds it once, twice, or once per exchange."""
    draw = rng.random()
    exchanges = every_exchange(whole)
    if per_exchange:
        return exchanges * 2 if draw < REPEATED_SHARE else exchanges
    if draw < PER_CALL_SHARE:
        return exchanges
    return [whole, whole] if draw < PER_CALL_SHARE + REPEATED_SHARE else [whole]


def logged(rng: random.Random, turns: int, per_exchange: bool) -> Iterator[dict[str, Any]]:
    """Log entries of about `turns` turns in all, CONCURRENT conversations interleaved."""
    going: list[list[dict[str, Any]]] = []  # each conversation's entries still to log
    returning: list[tuple[int, int, list[dict[str, Any]]]] = []  # (due, number, entries)
    written = number = count = 0
    while written < turns:
        while returning and returning[0][0] <= count:
            going.append(heapq.heappop(returning)[2])
        while len(going) < CONCURRENT:
            entries = entries_of(rng, conversation(rng, number), per_exchange)
            if len(entries) > 2 and rng.random() < RETURN_SHARE:
                half = len(entries) // 2
                heapq.heappush(returning, (count + RETURN_AFTER, number, entries[half:]))
                entries = entries[:half]
            going.append(entries)
            number += 1
        pick = rng.randrange(len(going))
        entry = going[pick].pop(0)
        if not going[pick]:
            going[pick] = going[-1]
            going.pop()
        written += len(entry["turns"])
        count += 1
        yield entry


def write_jsonl(entries: Iterator[dict[str, Any]], stream: TextIO) -> None:
    for entry in entries:
        stream.write(json.dumps(entry, ensure_ascii=False) + "\n")


def chat_messages(turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Turns as chat-completions messages: a tool turn is the assistant's call and its result."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM_PROMPT}]
    for turn in turns:
        if turn["role"] != "tool":
            messages.append({"role": turn["role"], "content": turn["text"]})
            continue
        tool = turn["tool"]
        arguments = json.dumps(tool["arguments"], ensure_ascii=False)
        function = {"name": tool["name"], "arguments": arguments}
        call = {"id": tool["call_id"], "type": "function", "function": function}
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": tool["call_id"], "content": turn["text"]})
    return messages


def model_calls(entry: dict[str, Any]) -> list[tuple[list[dict[str, Any]], dict[str, Any]]]:
    """The chat-completions calls of the entry's last exchange: what each sent (the system
    prompt and the history) and the message it got back (a tool call, or the reply)."""
    messages = chat_messages(entry["turns"])
    asked = max(i for i, m in enumerate(messages) if m["role"] == "user")
    return [
        (messages[:i], m) for i, m in enumerate(messages) if i > asked and m["role"] == "assistant"
    ]


def finish_reason(reply: dict[str, Any]) -> str:
    return "tool_calls" if reply.get("tool_calls") else "stop"


def exchange(entry: dict[str, Any]) -> tuple[str, dict[str, Any] | None, str]:
    """The entry's last exchange: what the user said, the tool turn if any, and the reply."""
    turns = entry["turns"]
    asked = max(i for i, t in enumerate(turns) if t["role"] == "user")
    tool = next((t for t in turns[asked:] if t["role"] == "tool"), None)
    return turns[asked]["text"], tool, turns[-1]["text"]


def clock(entry: dict[str, Any], step: int) -> float:
    """When a step of the entry's last exchange began: a conversation's exchanges a minute
    apart, the same in a repeated export."""
    number = int(entry["metadata"]["conversation_id"][1:])
    exchanges = sum(t["role"] == "user" for t in entry["turns"])
    return float(EPOCH + number * 7 + exchanges * 60 + step * 0.5)


def ident(entry: dict[str, Any], *parts: object, size: int = 16) -> str:
    """A stable id, as hex, of a step of the entry's last exchange: a repeated export has it too."""
    exchanges = sum(t["role"] == "user" for t in entry["turns"])
    key = "/".join(map(str, [entry["metadata"]["conversation_id"], exchanges, *parts]))
    return hashlib.blake2b(key.encode(), digest_size=size).hexdigest()


def uuid_of(entry: dict[str, Any], *parts: object) -> str:
    return str(uuid.UUID(ident(entry, *parts)))


def iso(seconds: float, zone: str = "Z") -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="microseconds")[:-6] + zone


def write_openai_log(entries: Iterator[dict[str, Any]], stream: TextIO) -> None:
    """Each model call of each entry's last exchange as a logged call: the history sent, the
    message received, the conversation's id in the request's metadata."""
    for entry in entries:
        for step, (sent, reply) in enumerate(model_calls(entry)):
            choice = {"index": 0, "message": reply, "finish_reason": finish_reason(reply)}
            call = {
                "request": {"model": MODEL, "messages": sent, "metadata": entry["metadata"]},
                "response": {
                    "id": f"chatcmpl-{ident(entry, step, size=12)}",
                    "object": "chat.completion",
                    "created": int(clock(entry, step)),
                    "model": SERVED,
                    "choices": [choice],
                },
            }
            stream.write(json.dumps(call, ensure_ascii=False) + "\n")


def otlp_value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, list):
        return {"arrayValue": {"values": [otlp_value(v) for v in value]}}
    return {"stringValue": value}


def otlp_attributes(values: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": key, "value": otlp_value(value)} for key, value in values.items()]


def otel_message(message: dict[str, Any]) -> dict[str, Any]:
    """A chat-completions message in the GenAI conventions' parts (v1.37+)."""
    if message.get("tool_calls"):
        parts = [
            {
                "type": "tool_call",
                "id": call["id"],
                "name": call["function"]["name"],
                "arguments": json.loads(call["function"]["arguments"]),
            }
            for call in message["tool_calls"]
        ]
    elif message["role"] == "tool":
        parts = [
            {
                "type": "tool_call_response",
                "id": message["tool_call_id"],
                "response": message["content"],
            }
        ]
    else:
        parts = [{"type": "text", "content": message["content"]}]
    return {"role": message["role"], "parts": parts}


RESOURCE = {
    "attributes": otlp_attributes(
        {"service.name": "support-bot", "telemetry.sdk.language": "python"}
    )
}
SCOPES = {
    "app": {"name": "support_bot.agent", "version": "1.4.2"},
    "openai": {"name": "opentelemetry.instrumentation.openai_v2", "version": "2.1b0"},
}


BATCH_SPANS = (20, 200)  # spans in one export: as many as ended since the last one


class SpanExport:
    """Spans as the collector's file exporter writes them: each exported batch a line, one
    ExportTraceServiceRequest, its spans by instrumentation scope."""

    def __init__(self, stream: TextIO, rng: random.Random) -> None:
        self.stream, self.rng = stream, rng
        self.spans: dict[str, list[dict[str, Any]]] = {scope: [] for scope in SCOPES}
        self.waiting, self.size = 0, rng.randint(*BATCH_SPANS)

    def ended(self, scope: str, span: dict[str, Any]) -> None:
        self.spans[scope].append(span)
        self.waiting += 1
        if self.waiting >= self.size:
            self.flush()

    def flush(self) -> None:
        scoped = [{"scope": SCOPES[s], "spans": spans} for s, spans in self.spans.items() if spans]
        if scoped:
            batch = {"resourceSpans": [{"resource": RESOURCE, "scopeSpans": scoped}]}
            self.stream.write(json.dumps(batch, ensure_ascii=False) + "\n")
        self.spans = {scope: [] for scope in SCOPES}
        self.waiting, self.size = 0, self.rng.randint(*BATCH_SPANS)


def span(
    entry: dict[str, Any],
    name: str,
    kind: int,
    steps: tuple[int, int],
    parent: str,
    values: dict[str, Any],
) -> dict[str, Any]:
    return {
        "traceId": ident(entry, "trace"),
        "spanId": ident(entry, name, steps[0], size=8),
        "parentSpanId": parent,
        "name": name,
        "kind": kind,
        "startTimeUnixNano": str(int(clock(entry, steps[0]) * 1e9)),
        "endTimeUnixNano": str(int(clock(entry, steps[1]) * 1e9 - 1e8)),
        "attributes": otlp_attributes(values),
        "status": {},
    }


def write_otel_genai(entries: Iterator[dict[str, Any]], stream: TextIO) -> None:
    """Each entry's last exchange as a trace: its chat spans (the history in
    `gen_ai.input.messages`), the tool's `execute_tool` span, the `invoke_agent` span around
    them, exported in the order they ended."""
    export = SpanExport(stream, random.Random(1))
    instructions = json.dumps([{"type": "text", "content": SYSTEM_PROMPT}])
    for entry in entries:
        named = {"gen_ai.conversation.id": entry["metadata"]["conversation_id"]}
        agent = ident(entry, "invoke_agent support", 0, size=8)
        _, tool, _ = exchange(entry)
        calls = model_calls(entry)
        for number, (sent, reply) in enumerate(calls):
            step = 1 + 2 * number
            output = {**otel_message(reply), "finish_reason": finish_reason(reply)}
            chat = {
                "gen_ai.operation.name": "chat",
                "gen_ai.provider.name": "openai",
                "gen_ai.request.model": MODEL,
                "gen_ai.response.model": SERVED,
                "gen_ai.response.id": f"chatcmpl-{ident(entry, step, size=12)}",
                "gen_ai.response.finish_reasons": [finish_reason(reply)],
                "gen_ai.usage.input_tokens": 12 * len(sent),
                "gen_ai.usage.output_tokens": 40,
                **named,
                "gen_ai.system_instructions": instructions,
                "gen_ai.input.messages": json.dumps(
                    [otel_message(m) for m in sent[1:]], ensure_ascii=False
                ),
                "gen_ai.output.messages": json.dumps([output], ensure_ascii=False),
            }
            export.ended("openai", span(entry, f"chat {MODEL}", 3, (step, step + 1), agent, chat))
            if reply.get("tool_calls") and tool is not None:
                call = tool["tool"]
                values = {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": call["name"],
                    "gen_ai.tool.type": "function",
                    "gen_ai.tool.call.id": call["call_id"],
                    "gen_ai.tool.call.arguments": json.dumps(call["arguments"], ensure_ascii=False),
                    "gen_ai.tool.call.result": tool["text"],
                }
                name = f"execute_tool {call['name']}"
                export.ended("app", span(entry, name, 1, (step + 1, step + 2), agent, values))
        root = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support", **named}
        export.ended(
            "app", span(entry, "invoke_agent support", 1, (0, 2 * len(calls) + 1), "", root)
        )
    export.flush()


def write_langfuse(entries: Iterator[dict[str, Any]], stream: TextIO) -> None:
    """Each entry's last exchange as a trace of the public API, with its observations: a
    GENERATION per model call, a TOOL for the tool; the exchange as the trace's input and
    output, the conversation as its session."""
    for entry in entries:
        trace_id = uuid_of(entry, "trace")
        asked, tool, answered = exchange(entry)
        observations = []
        calls = model_calls(entry)
        for number, (sent, reply) in enumerate(calls):
            step = 1 + 2 * number
            observations.append(
                {
                    "id": uuid_of(entry, "generation", step),
                    "traceId": trace_id,
                    "type": "GENERATION",
                    "name": "OpenAI-generation",
                    "startTime": iso(clock(entry, step)),
                    "endTime": iso(clock(entry, step + 1) - 0.1),
                    "completionStartTime": iso(clock(entry, step) + 0.2),
                    "parentObservationId": None,
                    "model": SERVED,
                    "modelParameters": {"temperature": 0.3},
                    "input": sent,
                    "output": reply,
                    "usageDetails": {
                        "input": 12 * len(sent),
                        "output": 40,
                        "total": 12 * len(sent) + 40,
                    },
                    "level": "DEFAULT",
                    "statusMessage": None,
                    "metadata": {},
                }
            )
            if reply.get("tool_calls") and tool is not None:
                observations.append(
                    {
                        "id": uuid_of(entry, "tool", step),
                        "traceId": trace_id,
                        "type": "TOOL",
                        "name": tool["tool"]["name"],
                        "startTime": iso(clock(entry, step + 1)),
                        "endTime": iso(clock(entry, step + 2) - 0.1),
                        "parentObservationId": None,
                        "input": tool["tool"]["arguments"],
                        "output": json.loads(tool["text"]),
                        "level": "DEFAULT",
                        "statusMessage": None,
                        "metadata": {},
                    }
                )
        trace = {
            "id": trace_id,
            "timestamp": iso(clock(entry, 0)),
            "name": "chat-turn",
            "userId": f"user-{entry['metadata']['conversation_id']}",
            "sessionId": entry["metadata"]["conversation_id"],
            "input": asked,
            "output": answered,
            "metadata": {},
            "tags": ["support"],
            "release": "2025.06.1",
            "version": None,
            "public": False,
            "observations": observations,
            "scores": [],
            "latency": 0.5 * (2 * len(calls) + 1),
            "htmlPath": f"/project/support/traces/{trace_id}",
        }
        stream.write(json.dumps(trace, ensure_ascii=False) + "\n")


PROJECT = "5f1c7a52-0b7e-4d0e-9a51-2d3c1f0e8b44"  # the tracing project: LangSmith's session_id


def langsmith_run(
    entry: dict[str, Any], kind: str, name: str, steps: tuple[int, int], **fields: Any
) -> dict[str, Any]:
    """A run of the entry's last exchange's trace, whose root is its chain run."""
    trace_id = uuid_of(entry, "trace")
    root = kind == "chain"
    return {
        "id": trace_id if root else uuid_of(entry, name, steps[0]),
        "trace_id": trace_id,
        "parent_run_id": None if root else trace_id,
        "run_type": kind,
        "name": name,
        "start_time": iso(clock(entry, steps[0]), ""),
        "end_time": iso(clock(entry, steps[1]) - 0.1, ""),
        "session_id": PROJECT,
        "status": "success",
        "error": None,
        "tags": [],
        **fields,
    }


def write_langsmith(entries: Iterator[dict[str, Any]], stream: TextIO) -> None:
    """Each entry's last exchange as the runs of one trace, one a line as `list_runs` gives
    them: the root chain run (the exchange), an llm run per model call (OpenAI messages, as
    `wrap_openai` logs them) and the tool run; the thread in every run's metadata."""
    for entry in entries:
        asked, tool, answered = exchange(entry)
        thread = {"thread_id": entry["metadata"]["conversation_id"]}
        calls = model_calls(entry)
        runs = [
            langsmith_run(
                entry,
                "chain",
                "support_bot",
                (0, 2 * len(calls) + 1),
                inputs={"question": asked},
                outputs={"answer": answered},
                extra={"metadata": thread, "runtime": {"sdk": "langsmith-py"}},
            )
        ]
        for number, (sent, reply) in enumerate(calls):
            step = 1 + 2 * number
            choice = {"index": 0, "message": reply, "finish_reason": finish_reason(reply)}
            metadata = {**thread, "ls_provider": "openai", "ls_model_name": MODEL}
            runs.append(
                langsmith_run(
                    entry,
                    "llm",
                    "ChatOpenAI",
                    (step, step + 1),
                    inputs={"messages": sent, "model": MODEL},
                    outputs={"choices": [choice], "model": SERVED},
                    extra={"metadata": metadata, "invocation_params": {"model": MODEL}},
                )
            )
            if reply.get("tool_calls") and tool is not None:
                runs.append(
                    langsmith_run(
                        entry,
                        "tool",
                        tool["tool"]["name"],
                        (step + 1, step + 2),
                        inputs=tool["tool"]["arguments"],
                        outputs={"output": json.loads(tool["text"])},
                        extra={"metadata": thread},
                    )
                )
        for run in runs:
            stream.write(json.dumps(run, ensure_ascii=False) + "\n")


Writer = Callable[[Iterator[dict[str, Any]], TextIO], None]
# Format name -> (file name ending, whether every exchange is logged on its own, its writer).
WRITERS: dict[str, tuple[str, bool, Writer]] = {
    "jsonl": (".jsonl", False, write_jsonl),
    "openai-log": (".jsonl", False, write_openai_log),
    "otel-genai": (".jsonl", True, write_otel_genai),
    "langfuse": (".jsonl", True, write_langfuse),
    "langsmith": (".jsonl", True, write_langsmith),
}


def measured(*args: object) -> tuple[float, float, str]:
    """Seconds, peak resident MB and stdout of one dialbench command, process start to exit."""
    start = time.perf_counter()
    child = subprocess.Popen([str(DIALBENCH), *map(str, args)], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    output = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"dialbench {' '.join(map(str, args))} failed")
    return seconds, usage.ru_maxrss / 1024, output


def store_mb(run: Path) -> float:
    return sum(f.stat().st_size for f in run.iterdir() if f.is_file()) / 1e6


FLOOR_TURNS = 100  # the same import on a log this small: what it costs whatever the size


def write_log(path: Path, fmt: str, turns: int) -> None:
    _, per_exchange, write = WRITERS[fmt]
    with path.open("w", encoding="utf-8") as stream:
        write(logged(random.Random(0), turns, per_exchange), stream)


def imported(source: Path, run: Path, fmt: str) -> tuple[float, float, dict[str, Any]]:
    seconds, peak, output = measured(
        "import", source, "--run", run, "--format", fmt, "--dedupe", "--json", "-q"
    )
    return seconds, peak, json.loads(output)


def main(turns: int, fmt: str, sample_size: int, folder: Path) -> None:
    suffix = WRITERS[fmt][0]
    source, small = folder / f"log{suffix}", folder / f"small{suffix}"
    write_log(source, fmt, turns)
    write_log(small, fmt, FLOOR_TURNS)
    print(f"{turns:,} turns of {fmt}: {source.stat().st_size / 1e6:.0f} MB")
    seconds, peak, _ = imported(small, folder / "small-run", fmt)
    floor = f"{FLOOR_TURNS} turns"
    print(f"{'import':<18} {seconds:6.1f} s {floor:>16} peak {peak:6.0f} MB (the floor)")
    run, sample = folder / "run", folder / "sample"
    seconds, peak, report = imported(source, run, fmt)
    rate = f"{turns / seconds:,.0f} turns/s"
    print(f"{'import':<18} {seconds:6.1f} s {rate:>16} peak {peak:6.0f} MB", end="")
    print(f"  store {store_mb(run):.0f} MB")
    counts = ("read", "repeats", "prefixes", "added", "unchanged")
    print("  " + ", ".join(f"{key} {report[key]:,}" for key in counts))
    if report["redacted"] is not None:
        found = ", ".join(f"{kind} {n:,}" for kind, n in report["redacted"].items() if n)
        print(f"  personal data redacted: {found or 'none'}")
    seconds, peak, _ = measured(
        "sample", run, sample, "--size", sample_size, "--seed", 0, "--quiet"
    )
    picked = f"{sample_size:,} picked"
    print(f"{'sample':<18} {seconds:6.1f} s {picked:>16} peak {peak:6.0f} MB", end="")
    print(f"  store {store_mb(sample):.1f} MB")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=1_000_000)
    parser.add_argument("--format", choices=sorted(WRITERS), default="jsonl")
    parser.add_argument("--sample-size", type=int, default=2000)
    parser.add_argument("--keep", type=Path, help="write the file and runs here, and keep them")
    options = parser.parse_args()
    if options.keep is not None:
        options.keep.mkdir(parents=True, exist_ok=True)
        main(options.turns, options.format, options.sample_size, options.keep)
    else:
        with tempfile.TemporaryDirectory() as scratch:
            main(options.turns, options.format, options.sample_size, Path(scratch))
