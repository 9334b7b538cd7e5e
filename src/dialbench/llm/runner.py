"""The runner: every model call goes through `Runner.call`.

In order: the cache (a hit makes no call), the same call already in flight (its answer is
shared, not asked for twice), a batch collecting the call if there is one, the endpoint's
concurrency slot and rate limits, the backend, retries with exponential backoff and
jitter (or the server's `Retry-After`), the answer made fit to store (`reply_text.py`), then
cost, accounting and a queued cache write. A call that still fails raises `CallFailed`, which
`gather` turns into a per-item result so one bad item never ends a long run.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Coroutine, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from dialbench.errors import DialbenchError
from dialbench.llm.accounting import Accounting
from dialbench.llm.backends import create_api
from dialbench.llm.base import CallDeferred, Completion, ModelAPI, ModelError, Request
from dialbench.llm.cache import CacheEntry, CallCache, cache_key
from dialbench.llm.collection import calls_started, long_job
from dialbench.llm.pace import EndpointPace
from dialbench.llm.prices import PriceTable
from dialbench.llm.progress import call_progress
from dialbench.llm.redaction import shown_error
from dialbench.llm.reply_text import storable_completion
from dialbench.llm.role_model import Model
from dialbench.llm.specs import ModelConfig
from dialbench.llm.stopping import StopRequested, stop_requested
from dialbench.schema import Invocation, StoredRecord, UsageLine

if TYPE_CHECKING:
    from dialbench.llm.batch import BatchCollector

log = logging.getLogger(__name__)
T = TypeVar("T")
BASE_DELAY_S = 0.5
MIN_WINDOW = 256
MAX_DELAY_S = 60.0


class CallFailed(DialbenchError):
    """A call that failed for good: not retryable, or out of attempts."""

    def __init__(self, spec: str, reason: str, attempts: int) -> None:
        super().__init__(f"{spec}: {reason} (after {attempts} attempt(s))")
        self.spec = spec
        self.reason = reason
        self.attempts = attempts


class Runner:
    """Shared by every role of a job. Use as a context manager (sync or async)."""

    def __init__(
        self,
        run_dir: str | Path | None = None,
        *,
        quiet: bool = False,
        run_id: str | None = None,
        prices: PriceTable | None = None,
        jitter_seed: int | None = None,
        batch: BatchCollector | None = None,
    ) -> None:
        """With `batch`, a call the cache cannot answer is collected into it (`CallDeferred`)."""
        if batch is not None and run_dir is None:
            raise DialbenchError("a batch needs a run directory: its answers go to the cache")
        self.batch = batch
        self.cache = CallCache(Path(run_dir)) if run_dir is not None else None
        self.quiet = quiet
        self.run_id = run_id
        self.prices = prices or PriceTable.load()
        self.accounting = Accounting()
        self._random = random.Random(jitter_seed)
        self._apis: dict[ModelConfig, ModelAPI] = {}
        self._in_flight = 0  # calls sent and not yet answered
        self._endpoints: dict[tuple[asyncio.AbstractEventLoop, str], EndpointPace] = {}
        self._asking: dict[tuple[asyncio.AbstractEventLoop, str], asyncio.Future[Completion]] = {}

    def model(self, model: str | ModelConfig, role: str = "default") -> Model:
        """A model bound to this runner and a role (user, assistant, validator, judge, ...).

        A packaged local model is assembled and verified here the first time (seconds); it is
        loaded on its first call.
        """
        config = model if isinstance(model, ModelConfig) else ModelConfig(spec=model)
        if config not in self._apis:
            self._apis[config] = create_api(config)
        return Model(self, self._apis[config], config, role)

    def _endpoint(self, api: ModelAPI, config: ModelConfig) -> EndpointPace:
        key = (asyncio.get_running_loop(), api.endpoint)
        endpoint = self._endpoints.get(key)
        if endpoint is None:
            endpoint = self._endpoints[key] = EndpointPace.of(config)
        return endpoint

    def _delay_s(self, attempt: int, error: ModelError) -> float:
        """The server's Retry-After (plus up to 10 %), else full-jitter exponential backoff."""
        if error.retry_after_s is not None:
            return error.retry_after_s * (1 + 0.1 * self._random.random())
        return self._random.uniform(0, min(MAX_DELAY_S, BASE_DELAY_S * 2 ** (attempt - 1)))

    async def call(
        self, api: ModelAPI, config: ModelConfig, role: str, request: Request
    ) -> Completion:
        """One request, from the cache if it is there, else from the model with retries.

        Identical requests in flight at once (dialogues that share a first user turn, say)
        make one call: the others wait for its answer, or its failure."""
        if self.cache is None:
            return await self._ask(api, config, role, request, "")
        key = cache_key(api.spec, request)
        hit = self.cache.get(key)
        asking = (asyncio.get_running_loop(), key)
        if hit is None and asking in self._asking:
            hit = await asyncio.shield(self._asking[asking])
        if hit is not None:
            self.accounting.line(role, api.spec).cached_calls += 1
            hit = storable_completion(hit, config.max_reply_bytes)
            return hit.model_copy(update={"cached": True})
        answer = self._asking[asking] = asyncio.get_running_loop().create_future()
        try:
            completion = await self._ask(api, config, role, request, key)
        except asyncio.CancelledError:
            answer.cancel()
            raise
        except BaseException as error:
            answer.set_exception(error)
            answer.exception()  # read: nobody need be waiting
            raise
        else:
            answer.set_result(completion)
            return completion
        finally:
            del self._asking[asking]

    async def _ask(
        self, api: ModelAPI, config: ModelConfig, role: str, request: Request, key: str
    ) -> Completion:
        """The call itself (or its deferral to a batch), with retries."""
        if self.batch is not None:
            self.batch.defer(api, config, key, request)
            raise CallDeferred(api.spec)
        endpoint = self._endpoint(api, config)
        line = self.accounting.line(role, api.spec)
        attempt = 0
        while True:
            attempt += 1
            async with endpoint.slots:
                if stop_requested():
                    raise StopRequested(api.spec)
                self._in_flight += 1
                try:
                    await endpoint.pace(request)
                    completion = await api.generate(request)
                except ModelError as error:
                    failure = error
                else:
                    completion = storable_completion(completion, config.max_reply_bytes)
                    return self._accept(api.spec, role, key, request, completion)
                finally:
                    self._in_flight -= 1
            said = shown_error(failure, api.secrets)  # a server may echo what it was sent
            if not failure.retryable or attempt == config.max_attempts:
                line.failed_calls += 1
                raise CallFailed(api.spec, said, attempt) from None  # the cause is unredacted
            line.retries += 1
            delay = self._delay_s(attempt, failure)
            if failure.retry_after_s is not None:
                endpoint.hold_off(delay)
            log.info("%s: %s; retrying in %.2fs", api.spec, said, delay)
            await asyncio.sleep(delay)

    def _accept(
        self, spec: str, role: str, key: str, request: Request, completion: Completion
    ) -> Completion:
        usage = completion.usage.model_copy(
            update={"cost_usd": self.prices.cost(spec, completion.usage)}
        )
        completion = completion.model_copy(update={"usage": usage})
        self.accounting.add_call(role, spec, usage)
        if self.cache is not None:
            self.cache.put(CacheEntry(key=key, spec=spec, request=request, completion=completion))
        return completion

    def _window(self) -> int:
        """Jobs started at once: enough to fill every model's slots twice over."""
        slots = sum(config.concurrency for config in self._apis)
        return max(MIN_WINDOW, 2 * slots)

    async def gather(
        self, jobs: Sequence[Awaitable[T]], description: str = "model calls"
    ) -> list[T | CallFailed]:
        """Run jobs concurrently with a progress bar; a failed item is returned, not raised.

        A window of jobs runs at a time, each next one starting as one ends, so a run of tens
        of thousands keeps that many coroutines alive, not all of them; and what the jobs were
        made from is left out of garbage collection while they run (`collection.py`)."""
        results: dict[int, T | CallFailed] = {}
        waiting = iter(enumerate(jobs))
        with call_progress(quiet=self.quiet) as progress, long_job():
            calls_started()
            task = progress.add_task(description, total=len(jobs), spend=0.0)

            async def worker() -> None:
                for index, job in waiting:
                    try:
                        results[index] = await job
                    except CallFailed as failure:
                        results[index] = failure
                    finally:
                        progress.update(task, advance=1, spend=self.accounting.total_cost_usd)

            try:
                await asyncio.gather(*(worker() for _ in range(min(self._window(), len(jobs)))))
            finally:
                for _, job in waiting:  # a stop or a bug ended the workers: never start these
                    if isinstance(job, Coroutine):
                        job.close()
        return [results[index] for index in range(len(jobs))]

    def store(self, records: Sequence[StoredRecord], run: Invocation) -> None:
        """Store records a job made from its calls, from the cache's writer thread after those
        calls, so the event loop never waits on SQLite; a stored id is replaced."""
        if self.cache is None:
            raise DialbenchError("storing records needs a runner with a run directory")
        self.cache.put_records(records, run)

    async def stored(self) -> None:
        """Wait (off the event loop) until every call and record put so far is committed."""
        if self.cache is not None:
            await asyncio.to_thread(self.cache.flush)

    def usage(self) -> list[UsageLine]:
        return self.accounting.lines()

    def save_usage(self) -> None:
        """Record this run's usage lines in the store (needs a run directory and a run id)."""
        if self.cache is not None and self.run_id is not None:
            self.cache.save_usage(self.run_id, self.accounting.lines())

    def run_sync(self, job: Coroutine[Any, Any, T]) -> T:
        """Run a coroutine to completion from synchronous code (scripts, the CLI)."""

        async def and_close() -> T:
            try:
                return await job
            except StopRequested:
                while self._in_flight:  # the job's other calls are still running: let them end
                    await asyncio.sleep(0.02)
                raise
            finally:
                await self.aclose()

        return asyncio.run(and_close())

    async def aclose(self) -> None:
        """Close the backends' connections on this event loop."""
        for api in self._apis.values():
            await api.aclose()
        loop = asyncio.get_running_loop()
        self._endpoints = {k: v for k, v in self._endpoints.items() if k[0] is not loop}

    def close(self) -> None:
        self.save_usage()
        if self.cache is not None:
            self.cache.close()

    def __enter__(self) -> Runner:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> Runner:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
        self.close()
