"""Provider batches: a stage's uncached calls as one OpenAI-style batch, at half the price.

The flow is OpenAI's Batch API (served by OpenAI, SGLang, LiteLLM's proxy, and by vLLM only
behind its production-stack router: plain `vllm serve` has no `/v1/batches`): the requests go up
as a JSONL file (`POST /files`), a batch is created over it (`POST /batches`), polled
(`GET /batches/{id}`), and its output file is merged into the call cache under the key the
runner would have used (each line's `custom_id` is that key). A re-run of the stage then answers
every batched call from the cache: zero calls.

Each submitted batch is a JSON file in `RUN/batches/`, written as soon as the provider named it,
so a killed poller picks up the same batch, and a stage re-run with `--batch` while a batch is
pending does not submit its requests again. A multi-turn stage (simulate) needs one batch per
round of turns, since each turn's request depends on the answer before; only single-call
stages (judge) submit batches.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from dialbench.errors import DialbenchError
from dialbench.io.validation import describe_error
from dialbench.llm.backends import create_api
from dialbench.llm.base import BatchEndpoint, ModelAPI, ModelError, Request, RequestKind
from dialbench.llm.cache import CacheEntry, CallCache
from dialbench.llm.openai_format import completion_from_response
from dialbench.llm.prices import PriceTable
from dialbench.llm.redaction import shown_error
from dialbench.llm.reply_text import storable_completion
from dialbench.llm.specs import ModelConfig
from dialbench.schema import Record, utc_now

BATCH_DIRECTORY = "batches"
BATCH_PRICE_FACTOR = 0.5  # OpenAI bills batched tokens at half the synchronous price
COMPLETION_WINDOW = "24h"
FINISHED = frozenset({"completed", "expired", "cancelled"})  # with whatever output they have
FAILED = "failed"
DEFAULT_POLL_INTERVAL_S = 30.0


class BatchError(DialbenchError):
    """A batch that cannot be submitted, polled or merged."""


class BatchRecord(Record):
    """One submitted batch, as `RUN/batches/<id>.json` keeps it."""

    model_config = ConfigDict(extra="forbid")

    id: str
    model: ModelConfig = Field(description="the model, without credentials (keys: api_key_env)")
    spec: str = Field(description="the model's cache identity")
    kind: RequestKind
    input_file_id: str
    submitted_at: datetime
    requests: dict[str, Request] = Field(description="by custom_id, which is the cache key")
    status: str = Field(description="the provider's last word: validating, in_progress, ...")
    done: bool = Field(default=False, description="merged, or failed for good")
    merged: int = 0
    failed: int = 0
    first_error: str | None = None

    @property
    def pending(self) -> bool:
        return not self.done


class _ProviderBatch(BaseModel):
    """The fields of OpenAI's batch object that dialbench reads."""

    status: str
    output_file_id: str | None = None
    error_file_id: str | None = None
    errors: dict[str, Any] | None = None


class _LineError(BaseModel):
    message: str = ""
    code: str | None = None


class _LineResponse(BaseModel):
    status_code: int
    body: dict[str, JsonValue] = Field(default_factory=dict)


class _OutputLine(BaseModel):
    """One line of a batch's output or error file."""

    custom_id: str
    response: _LineResponse | None = None
    error: _LineError | None = None

    def failure(self) -> str | None:
        if self.error is not None:
            return self.error.message or self.error.code or "failed"
        if self.response is None:
            return "no response"
        if self.response.status_code != 200:
            said = self.response.body.get("error")
            message = said.get("message") if isinstance(said, dict) else said
            return f"HTTP {self.response.status_code}: {message or 'no message'}"
        return None


def batch_directory(run_dir: Path) -> Path:
    return run_dir / BATCH_DIRECTORY


def load_batches(run_dir: Path) -> list[BatchRecord]:
    """Every batch submitted from this run directory, oldest first."""
    records = []
    for path in sorted(batch_directory(run_dir).glob("*.json")):
        try:
            records.append(BatchRecord.model_validate_json(path.read_bytes()))
        except ValidationError as invalid:
            where, message = describe_error(invalid.errors()[0])
            raise BatchError(f"{path}: field '{where}': {message}") from None
    return sorted(records, key=lambda record: record.submitted_at)


def save_batch(run_dir: Path, record: BatchRecord) -> None:
    """Atomically: a killed process leaves the old record or the new one, never half of one."""
    directory = batch_directory(run_dir)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{record.id}.json"
    partial = path.with_suffix(".json.partial")
    partial.write_text(record.model_dump_json(indent=1), encoding="utf-8")
    os.replace(partial, path)


def batch_target(api: ModelAPI) -> BatchEndpoint:
    """The endpoint a model's batches go to, as its backend says (a pool: its first replica)."""
    target = api.batch_target()
    if target is not None:
        return target
    raise BatchError(
        f"{api.spec}: batches need an openai, openai-compat or pool model (OpenAI's Batch API)"
    )


@dataclass
class _Group:
    api: ModelAPI
    config: ModelConfig
    kind: RequestKind
    requests: dict[str, Request] = field(default_factory=dict)


class BatchCollector:
    """Collects the runner's uncached calls (`Runner(batch=...)`), then submits them."""

    def __init__(self, run_dir: str | Path) -> None:
        self.run_dir = Path(run_dir)
        self._groups: dict[tuple[str, str], _Group] = {}

    def defer(self, api: ModelAPI, config: ModelConfig, key: str, request: Request) -> None:
        batch_target(api)
        group = self._groups.setdefault((api.spec, request.kind), _Group(api, config, request.kind))
        group.requests[key] = request

    async def submit(self) -> list[BatchRecord]:
        """The batches that will answer the collected calls: new ones for calls no pending
        batch holds, and the pending ones that hold the rest."""
        pending = [record for record in load_batches(self.run_dir) if record.pending]
        held = {key for record in pending for key in record.requests}
        collected = {key for group in self._groups.values() for key in group.requests}
        batches = [record for record in pending if collected & record.requests.keys()]
        for group in self._groups.values():
            new = {key: r for key, r in group.requests.items() if key not in held}
            if new:
                batches.append(await _submit(self.run_dir, group, new))
        return batches


async def _submit(run_dir: Path, group: _Group, requests: dict[str, Request]) -> BatchRecord:
    target = batch_target(group.api)
    lines = []
    for key, request in requests.items():
        path, body = target.request_body(request)
        lines.append({"custom_id": key, "method": "POST", "url": f"/v1{path}", "body": body})
    content = b"\n".join(orjson.dumps(line) for line in lines) + b"\n"
    try:
        uploaded = await target.http.upload(
            "/files", {"purpose": "batch"}, "dialbench-batch.jsonl", content
        )
        created = await target.http.post(
            "/batches",
            {
                "input_file_id": uploaded["id"],
                "endpoint": lines[0]["url"],
                "completion_window": COMPLETION_WINDOW,
                "metadata": {"dialbench_run": str(run_dir)},
            },
        )
        record = BatchRecord(
            id=created["id"],
            model=group.config,
            spec=group.api.spec,
            kind=group.kind,
            input_file_id=uploaded["id"],
            submitted_at=utc_now(),
            requests=requests,
            status=created.get("status") or "validating",
        )
    except (ModelError, KeyError, TypeError) as error:
        said = shown_error(error, group.api.secrets)
        raise BatchError(f"{target.endpoint}: submitting a batch failed: {said}") from None
    save_batch(run_dir, record)
    return record


def _read_lines(
    record: BatchRecord, file_id: str, content: bytes
) -> tuple[list[_OutputLine], list[str]]:
    """The lines of an output or error file, and a message for each bad one, naming it."""
    lines, problems = [], []
    for number, text in enumerate(content.decode("utf-8", "replace").splitlines(), 1):
        if not text.strip():
            continue
        where = f"batch {record.id}: file {file_id} line {number}"
        try:
            line = _OutputLine.model_validate_json(text)
        except ValidationError as invalid:
            field_name, message = describe_error(invalid.errors()[0])
            problems.append(f"{where}: field '{field_name}': {message}")
            continue
        if line.custom_id not in record.requests:
            problems.append(f"{where}: custom_id {line.custom_id!r} is no request of this batch")
        else:
            lines.append(line)
    return lines, problems


def _cache_entry(record: BatchRecord, line: _OutputLine, prices: PriceTable) -> CacheEntry:
    """The line's answer as the runner would have cached it, at the batch price."""
    request = record.requests[line.custom_id]
    assert line.response is not None  # a line without a response is a failure
    answer = completion_from_response(line.response.body, 0.0, chat=request.kind == "chat")
    completion = storable_completion(answer, record.model.max_reply_bytes)
    cost = prices.cost(record.spec, completion.usage)
    usage = completion.usage.model_copy(
        update={"cost_usd": None if cost is None else cost * BATCH_PRICE_FACTOR}
    )
    return CacheEntry(
        key=line.custom_id,
        spec=record.spec,
        request=request,
        completion=completion.model_copy(update={"usage": usage}),
    )


def merge(
    record: BatchRecord, cache: CallCache, files: dict[str, bytes]
) -> tuple[BatchRecord, list[str]]:
    """Each answer into the cache; the record, done, counting what is not answered; and a
    message for each malformed line (its request stays unanswered)."""
    prices = PriceTable.load()
    answered, failures, problems = 0, [], []
    for file_id, content in files.items():
        lines, bad = _read_lines(record, file_id, content)
        problems += bad
        for line in lines:
            reason = line.failure()
            if reason is None:
                try:
                    cache.put(_cache_entry(record, line, prices))
                except ModelError as error:
                    reason = str(error)
            if reason is None:
                answered += 1
            else:
                failures.append(f"{line.custom_id[:12]}: {reason}")
    cache.flush()
    unanswered = len(record.requests) - answered
    first_error = next(iter(problems + failures), None)
    if first_error is None and unanswered:
        first_error = f"{unanswered} request(s) not in the output"
    update = {"done": True, "merged": answered, "failed": unanswered, "first_error": first_error}
    return record.model_copy(update=update), problems


async def poll(run_dir: Path, record: BatchRecord, cache: CallCache) -> BatchRecord:
    """Ask the provider once; merge a finished batch. The record is saved either way."""
    api = create_api(record.model)
    target = batch_target(api)
    problems: list[str] = []
    try:
        reply = _ProviderBatch.model_validate(await target.http.get(f"/batches/{record.id}"))
        record = record.model_copy(update={"status": reply.status})
        if reply.status in FINISHED:
            files = {}
            for file_id in filter(None, (reply.output_file_id, reply.error_file_id)):
                files[file_id] = await target.http.get_bytes(f"/files/{file_id}/content")
            record, problems = merge(record, cache, files)
        elif reply.status == FAILED:
            said = ((reply.errors or {}).get("data") or [{}])[0]
            reason = said.get("message") if isinstance(said, dict) else None
            record = record.model_copy(
                update={
                    "done": True,
                    "failed": len(record.requests),
                    "first_error": reason or "the provider gave no reason",
                }
            )
    except (ModelError, ValidationError) as error:
        said = shown_error(error, api.secrets)
        raise BatchError(f"batch {record.id} at {target.endpoint}: {said}") from None
    finally:
        await api.aclose()
    save_batch(run_dir, record)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise BatchError(
            f"{problems[0]}{more}; the batch's {record.merged} other answers are merged"
        )
    return record


async def poll_all(run_dir: Path) -> list[BatchRecord]:
    """Every batch of the run directory, the pending ones polled once."""
    records = load_batches(run_dir)
    if not any(record.pending for record in records):
        return records
    with CallCache(run_dir) as cache:
        return [
            await poll(run_dir, record, cache) if record.pending else record for record in records
        ]


def wait_for_batches(
    run_dir: str | Path,
    *,
    interval_s: float = DEFAULT_POLL_INTERVAL_S,
    timeout_s: float | None = None,
) -> list[BatchRecord]:
    """Poll until no batch is pending (or `timeout_s` passed); merged answers stay merged."""
    run_dir = Path(run_dir)
    started = time.monotonic()
    while True:
        records = asyncio.run(poll_all(run_dir))
        if not any(record.pending for record in records):
            return records
        if timeout_s is not None and time.monotonic() - started + interval_s > timeout_s:
            raise BatchError(
                f"{sum(r.pending for r in records)} batch(es) still pending after "
                f"{timeout_s:g}s; run dialbench batch wait {run_dir} again later"
            )
        time.sleep(interval_s)


def unanswered(records: Sequence[BatchRecord]) -> str | None:
    """What the batches left unanswered (failed, expired, malformed), if anything."""
    failed = [r for r in records if r.done and r.failed]
    if not failed:
        return None
    said = "; ".join(
        f"batch {r.id} ({r.status}): {r.failed} of {len(r.requests)} request(s) unanswered, "
        f"first: {r.first_error}"
        for r in failed
    )
    return f"{said}; re-run the stage to call them (with --batch: in a new batch)"
