"""How a pipeline's stages run. The scheduler (`execute.py`) decides when a stage runs; its
executor decides where. A new executor is one module here and one line in `EXECUTORS`; it is
imported only when chosen, so what it needs stays an optional extra."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from pydantic import Field

from dialbench.pipeline.graph import Node
from dialbench.pipeline.stage import StageResult
from dialbench.registry import Registry
from dialbench.schema import Record


class ExecutorOptions(Record):
    address: str | None = Field(default=None, description="a cluster to join (ray)")
    shards: int | None = Field(default=None, ge=1, description="parts of each stage's work (ray)")


class Executor(Protocol):
    def run(self, node: Node, run_dir: Path) -> StageResult:
        """Run one stage on the run directory (called from the scheduler's threads)."""
        ...

    def stop(self) -> None:
        """Ctrl-C: start no new work; work in flight ends as soon as it cleanly can."""
        ...

    def close(self) -> None: ...


class ExecutorType(Protocol):
    def __call__(self, options: ExecutorOptions) -> Executor: ...


EXECUTORS: Registry[ExecutorType] = Registry(
    "executor",
    {
        "local": "dialbench.pipeline.executors.local:LocalExecutor",
        "ray": "dialbench.pipeline.executors.ray:RayExecutor",
    },
    group="executors",
)


def create_executor(name: str, options: ExecutorOptions | None = None) -> Executor:
    return EXECUTORS.load(name)(options or ExecutorOptions())
