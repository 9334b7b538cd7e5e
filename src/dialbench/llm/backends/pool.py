"""A pool: one model served by several OpenAI-compatible replicas (e.g. 4 vLLM servers).

Each request goes to the replica with the fewest outstanding requests (in flight or waiting for
its slots), under that replica's own concurrency and rate limits (`ModelConfig` fields hold per
replica). A replica that fails a request in a way worth retrying (5xx, 429, a timeout, a refused
connection) is backed off, for its Retry-After or else for an exponential delay that grows with
its consecutive failures, and the request moves at once to another replica. Only when every
replica failed it does the runner see one retryable error and retry with its own backoff.

The pool's spec is `pool:<model>`, whatever its replicas: the cache key and every judgment's
judge name stay the same when a replica is added, removed or is down. The replicas are named
once, in the spec (`pool:<url>,<url>,...#<model>`) or in its `endpoints` setting.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import ClassVar

from pydantic import Field, ValidationInfo, field_serializer, model_validator

from dialbench.llm.backends.openai_compat import OpenAICompatAPI
from dialbench.llm.base import (
    BackendSettings,
    BatchEndpoint,
    Completion,
    ModelAPI,
    ModelError,
    ParsedSpec,
    Request,
    StructuredMode,
    spec_of,
)
from dialbench.llm.pace import EndpointPace
from dialbench.llm.redaction import redacted
from dialbench.llm.specs import (
    ModelConfig,
    ModelSpecError,
    check_url,
    parse_spec,
    without_credentials,
)

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


class PoolSettings(BackendSettings):
    """Where a pool's replicas are, when its spec does not name them."""

    endpoints: tuple[str, ...] = Field(
        default=(),
        description="base URLs of the replicas (spec pool:<model>); dumped without credentials",
        repr=False,
    )

    @model_validator(mode="after")
    def _replicas_named_once(self, info: ValidationInfo) -> PoolSettings:
        """The replicas are http(s) URLs named once: checked where the config is read (a YAML
        line, a --judge option), not mid-run."""
        spec = spec_of(info)
        if spec is None:
            return self
        try:
            in_spec = parse_spec(spec).endpoints
            for url in self.endpoints:
                check_url(url, spec)
        except ModelSpecError as error:
            raise ValueError(str(error)) from None
        if bool(in_spec) == bool(self.endpoints):
            raise ValueError(
                f"model spec {spec!r}: name the replicas once, either in the spec "
                "(pool:http://a:8000/v1,http://b:8000/v1#model) or as endpoints with spec "
                "pool:model"
            )
        return self

    @field_serializer("endpoints")
    def _public_endpoints(self, endpoints: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(without_credentials(url) for url in endpoints)

    def replicas(self, spec: str) -> tuple[str, ...]:
        return self.endpoints or parse_spec(spec).endpoints


def replica_config(config: ModelConfig, url: str, model: str) -> ModelConfig:
    """The pool's settings for one replica, as an openai-compat model: every one but its own."""
    shared = {name: getattr(config, name) for name in ModelConfig.model_fields}
    del shared["settings"]
    return ModelConfig.model_validate(shared | {"spec": f"openai-compat:{url}#{model}"})


class PoolAPI(ModelAPI):
    """A `ModelAPI` over the replicas of one model; its provider batches go to the first."""

    Settings: ClassVar[type[BackendSettings]] = PoolSettings
    takes_tools = True  # its replicas' requests are `openai-compat:`'s

    def __init__(self, config: ModelConfig) -> None:
        parsed = config.parsed
        self.replicas = [
            Replica(OpenAICompatAPI(replica), replica)
            for replica in (
                replica_config(config, url, parsed.model) for url in config.replica_urls
            )
        ]
        self.spec = self.endpoint = f"{parsed.backend}:{parsed.model}"
        self.secrets = frozenset().union(*(replica.api.secrets for replica in self.replicas))
        self.structured_mode: StructuredMode = self.replicas[0].api.structured_mode

    @classmethod
    def parse_spec(cls, backend: str, rest: str, shown: str) -> ParsedSpec:
        """`<model>` (replicas in `endpoints`) or `<url>,<url>,...#<model>`."""
        urls, hash_sign, model = rest.rpartition("#")
        if not hash_sign:
            return ParsedSpec(backend=backend, model=rest)
        endpoints = tuple(url.strip() for url in urls.split(","))
        if not model or not all(endpoints):
            raise ModelSpecError(
                f"model spec {shown!r}: write {backend}:<base URL>,<base URL>,...#<model name>, "
                f"e.g. {backend}:http://10.0.0.1:8000/v1,http://10.0.0.2:8000/v1#my-model"
            )
        for url in endpoints:
            check_url(url, shown)
        return ParsedSpec(backend=backend, model=model, endpoints=endpoints)

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
                said = redacted(str(error), self.secrets)
                log.info("%s: %s; backed off %.2fs, trying another", replica.url, said, delay)
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
