"""A pool: one model served by several OpenAI-compatible replicas (e.g. 4 vLLM servers).

Each request goes to the replica with the fewest outstanding requests (in flight or waiting for
its slots), under that replica's own concurrency and rate limits (`ModelConfig` fields hold per
replica). A replica that fails a request in a way worth retrying (5xx, 429, a timeout, a refused
connection) is backed off, for its Retry-After or else for an exponential delay that grows with
its consecutive failures, and the request moves at once to another replica. Only when every
replica failed it does the runner see one retryable error and retry with its own backoff.

The pool's spec is `pool:<model>`, whatever its replicas: the cache key and every judgment's
judge name stay the same when a replica is added, removed or is down.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field

from dialbench.llm.backends.openai_compat import OpenAICompatAPI
from dialbench.llm.base import (
    BatchEndpoint,
    Completion,
    ModelAPI,
    ModelError,
    Request,
    StructuredMode,
)
from dialbench.llm.pace import EndpointPace
from dialbench.llm.specs import POOL, ModelConfig

log = logging.getLogger(__name__)
FIRST_BACKOFF_S = 0.5
MAX_BACKOFF_S = 30.0


@dataclass
class Replica:
    """One replica, and what the pool knows about it."""

    api: OpenAICompatAPI
    config: ModelConfig
    outstanding: int = 0
    consecutive_failures: int = 0
    served: int = 0
    paces: dict[asyncio.AbstractEventLoop, EndpointPace] = field(default_factory=dict)

    @property
    def url(self) -> str:
        """The public base URL (without credentials)."""
        return self.api.endpoint

    def pace(self) -> EndpointPace:
        """Slots and limiters per event loop: asyncio's primitives belong to one loop."""
        loop = asyncio.get_running_loop()
        if loop not in self.paces:
            self.paces[loop] = EndpointPace.of(self.config)
        return self.paces[loop]

    def back_off(self, error: ModelError) -> float:
        self.consecutive_failures += 1
        exponential = FIRST_BACKOFF_S * 2 ** (self.consecutive_failures - 1)
        delay = error.retry_after_s if error.retry_after_s is not None else exponential
        delay = min(delay, MAX_BACKOFF_S)
        self.pace().hold_off(delay)
        return delay


def replica_config(config: ModelConfig, url: str, model: str) -> ModelConfig:
    """The pool's settings for one replica, as an openai-compat model."""
    shared = config.model_dump(exclude={"spec", "endpoints", "base_url"})
    return ModelConfig.model_validate(shared | {"spec": f"openai-compat:{url}#{model}"})


class PoolAPI(ModelAPI):
    """A `ModelAPI` over the replicas of one model; its provider batches go to the first."""

    def __init__(self, config: ModelConfig) -> None:
        model = config.parsed.model
        self.replicas = [
            Replica(OpenAICompatAPI(replica), replica)
            for replica in (replica_config(config, url, model) for url in config.pool_urls)
        ]
        self.spec = self.endpoint = f"{POOL}:{model}"
        self.structured_mode: StructuredMode = self.replicas[0].api.structured_mode

    def check(self) -> None:
        """A pool answers while one replica does."""
        failures = []
        for replica in self.replicas:
            try:
                replica.api.check()
            except ModelError as error:
                failures.append(f"{replica.url}: {error}")
            else:
                return
        raise ModelError(
            f"no replica of {self.spec} is reachable ({len(failures)} tried; {failures[0]}, ...)"
            if len(failures) > 1
            else f"no replica of {self.spec} is reachable ({failures[0]})"
        )

    def _choose(self, tried: set[int]) -> int:
        """The ready replica with the fewest outstanding requests; if all are backed off, the
        one back first (the caller then waits for it)."""
        now = asyncio.get_running_loop().time()
        untried = [i for i in range(len(self.replicas)) if i not in tried]
        ready = [i for i in untried if self.replicas[i].pace().resume_at <= now]
        if ready:
            return min(ready, key=lambda i: self.replicas[i].outstanding)
        return min(untried, key=lambda i: self.replicas[i].pace().resume_at)

    async def generate(self, request: Request) -> Completion:
        """Each replica at most once per call: a request every replica fails is the runner's
        to retry (or give up on), after its own backoff."""
        tried: set[int] = set()
        failures: list[str] = []
        while len(tried) < len(self.replicas):
            index = self._choose(tried)
            tried.add(index)
            replica = self.replicas[index]
            replica.outstanding += 1
            try:
                pace = replica.pace()
                async with pace.slots:
                    await pace.pace(request)
                    completion = await replica.api.generate(request)
                    self.structured_mode = replica.api.structured_mode  # the servers' own
            except ModelError as error:
                if not error.retryable:
                    raise
                delay = replica.back_off(error)
                log.info("%s: %s; backed off %.2fs, trying another", replica.url, error, delay)
                failures.append(f"{replica.url}: {error}")
            else:
                replica.consecutive_failures = 0
                replica.served += 1
                return completion
            finally:
                replica.outstanding -= 1
        raise ModelError(
            f"every replica failed ({'; '.join(failures)})",
            retryable=True,
        )

    async def aclose(self) -> None:
        for replica in self.replicas:
            await replica.api.aclose()

    def batch_target(self) -> BatchEndpoint:
        return self.replicas[0].api
