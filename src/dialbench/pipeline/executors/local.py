"""The default executor: every stage in this process, in the scheduler's thread."""

from __future__ import annotations

from pathlib import Path

from dialbench.errors import DialbenchError
from dialbench.llm.stopping import request_stop
from dialbench.pipeline.executors import ExecutorOptions
from dialbench.pipeline.graph import Node
from dialbench.pipeline.stage import StageResult


class LocalExecutor:
    def __init__(self, options: ExecutorOptions | None = None) -> None:
        if options is not None and (options.address or options.shards):
            raise DialbenchError("--address and --shards are for --executor ray")

    def run(self, node: Node, run_dir: Path) -> StageResult:
        return node.stage.execute(run_dir)

    def stop(self) -> None:
        request_stop()

    def close(self) -> None:
        pass
