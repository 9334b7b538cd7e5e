"""LangSmith runs, as JSON or JSON Lines: what `Client.list_runs` returns, one run per line, or
a root run with its `child_runs` nested (`read_run(..., load_child_runs=True)`).

A run has `id`, `run_type` (llm, chain, tool, retriever, ...), `inputs`, `outputs`,
`start_time`, `parent_run_id` and `trace_id`. llm runs are model calls (their input and output
messages: OpenAI's, or LangChain's own, serialised or not), tool runs tool turns, retriever runs
retrieval turns; chains are structure, but a trace's root run holds what the user said and was
answered. Runs of one trace are one exchange; LangSmith's threads, named by `thread_id`,
`session_id` or `conversation_id` in `extra.metadata`, are conversations. (The top-level
`session_id` of a run is its tracing project, not a conversation.)

A root run with its children nested is a complete trace: with no thread, a dialogue yielded as
soon as it is read.

Held in memory: the runs of the traces listed one run per line still open, and the messages of
the threads still open. A trace is complete once no run of it came for `QUIET_RECORDS` runs
(10,000; `conversation.Window`), a thread once no run of a trace of it came for as many
(`conversation.Trails`); each is given out then, or when the file ends. A trace whose root run
holds the exchange holds only what is new, so a thread that goes on after it was given out is
split in two: a second dialogue that starts mid-conversation, both kept. Where the root's inputs
and outputs are not a chat, its llm runs' history repeats the whole conversation, and the
import's prefix dedupe keeps the longer one.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from dialbench.io.chat_messages import ToolKind, Where, as_text
from dialbench.io.log_reader import LogReader, OpenTrace, Piece, Whole
from dialbench.io.trace_exports import TracedExchange, documents_text, seconds, tool_use

NAME = "langsmith"
THREAD_KEYS = ("thread_id", "session_id", "conversation_id")
TOOL_KINDS: dict[str, ToolKind] = {"tool": "function", "retriever": "retrieval"}


def _metadata(run: dict[str, Any]) -> dict[str, Any]:
    extra = run.get("extra")
    metadata = extra.get("metadata") if isinstance(extra, dict) else None
    return metadata if isinstance(metadata, dict) else {}


def _model(run: dict[str, Any]) -> Any:
    extra = run.get("extra") if isinstance(run.get("extra"), dict) else {}
    params = extra.get("invocation_params") if isinstance(extra, dict) else None
    params = params if isinstance(params, dict) else {}
    return _metadata(run).get("ls_model_name") or params.get("model") or params.get("model_name")


def _tool_output(outputs: Any) -> tuple[str | None, str | None]:
    """A tool run's result as text, and the call id when it returned a LangChain ToolMessage."""
    if outputs is None:
        return None, None
    value = outputs.get("output", outputs) if isinstance(outputs, dict) else outputs
    message = value.get("kwargs", value) if isinstance(value, dict) else None
    if isinstance(message, dict) and "tool_call_id" in message:
        return as_text(message.get("content")), str(message["tool_call_id"])
    return as_text(value), None


@dataclass
class _Run:
    run: dict[str, Any]
    where: Where

    @property
    def start(self) -> float | None:
        return seconds(self.run.get("start_time"))


def _thread(run: dict[str, Any]) -> str | None:
    metadata = _metadata(run)
    found = next((metadata[k] for k in THREAD_KEYS if metadata.get(k)), None)
    return None if found is None else str(found)


def _exchange(trace_id: str, runs: list[_Run]) -> TracedExchange:
    exchange = TracedExchange(trace_id)
    root = next((r for r in runs if str(r.run.get("id")) == trace_id), None)
    for run in sorted(runs, key=lambda r: r.start or 0.0):
        kind, fields = run.run.get("run_type"), run.run
        if kind == "llm":
            at = run.where
            exchange.add_call(
                fields.get("inputs"), fields.get("outputs"), at, run.start, _model(fields)
            )
        elif kind in TOOL_KINDS:
            if kind == "retriever":
                outputs = fields.get("outputs")
                result, call_id = (None if outputs is None else documents_text(outputs)), None
            else:
                result, call_id = _tool_output(fields.get("outputs"))
            name = str(fields.get("name") or kind)
            use = tool_use(
                name,
                TOOL_KINDS[kind],
                fields.get("inputs"),
                result,
                run.where,
                call_id=call_id,
                at=run.start,
            )
            exchange.uses.append(use)
    if root is not None:
        last = max((r.start or 0.0 for r in runs), default=None)
        exchange.set_own(
            root.run.get("inputs"), root.run.get("outputs"), root.where, root.start, last
        )
    return exchange


def _runs(run: Any, where: Where) -> Iterator[_Run]:
    if not isinstance(run, dict):
        raise where.error(f"expected a run object, got {type(run).__name__}")
    if run.get("id") in (None, ""):
        raise (where / "id").error("a run with no id")
    if not isinstance(run.get("run_type"), str):
        raise (where / "run_type").error("a run with no run_type")
    yield _Run(run, where)
    for index, child in enumerate(run.get("child_runs") or []):
        if isinstance(child, dict):
            child.setdefault("trace_id", run.get("trace_id") or run["id"])
        yield from _runs(child, where / "child_runs" / index)


def _trace_id(run: _Run) -> str:
    trace_id = run.run.get("trace_id")
    if trace_id not in (None, ""):
        return str(trace_id)
    if run.run.get("parent_run_id") in (None, ""):
        return str(run.run["id"])
    raise (run.where / "trace_id").error("a child run without a trace id")


def _events(record: dict[str, Any], where: Where) -> list[Piece[_Run] | Whole]:
    """A root run with its children nested is a whole trace; any other run is a piece of its
    trace (each once, by its id), as are the runs nested in it."""
    runs = list(_runs(record, where))
    trace_ids = [_trace_id(run) for run in runs]
    whole = bool(record.get("child_runs")) and record.get("parent_run_id") in (None, "")
    if whole and len(set(trace_ids)) == 1:
        thread = next((t for run in runs if (t := _thread(run.run)) is not None), None)
        return [Whole(thread, _exchange(trace_ids[0], runs))]
    return [
        Piece(trace_id, run, str(run.run["id"]), (_thread(run.run),))
        for trace_id, run in zip(trace_ids, runs, strict=True)
    ]


def _pieced(trace_id: str, trace: OpenTrace[_Run]) -> TracedExchange:
    return _exchange(trace_id, trace.pieces)


LANGSMITH = LogReader(
    NAME,
    "LangSmith runs (JSON, JSON Lines)",
    _events,
    lambda keys: "run_type" in keys,
    exchange=_pieced,
).file_format()
