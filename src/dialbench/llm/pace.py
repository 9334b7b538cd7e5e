"""An endpoint's pace: its concurrency slots, rate limits, and the hold a server's Retry-After
puts on every call to it. The runner keeps one per endpoint; a pool keeps one per replica."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from aiolimiter import AsyncLimiter

from dialbench.llm.base import Request
from dialbench.llm.specs import ModelConfig


@dataclass
class EndpointPace:
    """One endpoint's concurrency slots, rate limits and Retry-After hold."""

    slots: asyncio.Semaphore
    requests: AsyncLimiter | None
    tokens: AsyncLimiter | None
    resume_at: float = 0.0  # loop time before which nothing is sent (a server's Retry-After)

    @classmethod
    def of(cls, config: ModelConfig) -> EndpointPace:
        """The config's limits. A pool paces each replica itself (`pool.py`), so the pool as a
        whole only caps calls in flight, at the sum of its replicas' slots."""
        if config.replica_urls:
            return cls(slots=asyncio.Semaphore(config.concurrency), requests=None, tokens=None)
        return cls(
            slots=asyncio.Semaphore(config.concurrency),
            requests=AsyncLimiter(config.requests_per_minute)
            if config.requests_per_minute
            else None,
            tokens=AsyncLimiter(config.tokens_per_minute) if config.tokens_per_minute else None,
        )

    def hold_off(self, seconds: float) -> None:
        loop_time = asyncio.get_running_loop().time()
        self.resume_at = max(self.resume_at, loop_time + seconds)

    async def pace(self, request: Request) -> None:
        """Wait out a Retry-After the endpoint gave any call, then the rate limits."""
        if (wait := self.resume_at - asyncio.get_running_loop().time()) > 0:
            await asyncio.sleep(wait)
        if self.requests is not None:
            await self.requests.acquire()
        if self.tokens is not None:
            text = request.prompt + "".join(m.content for m in request.messages)
            estimate = len(text) / 4 + request.params.max_tokens
            await self.tokens.acquire(min(estimate, self.tokens.max_rate))
