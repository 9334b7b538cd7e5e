"""The order a pipeline's stages may run in, and each stage's identity.

A stage waits for every earlier stage that writes what it reads (its inputs) and for every
earlier stage that reads what it writes (so a later simulation does not change the dialogues
a judge is reading). Stages with no such link run at the same time.
"""

from __future__ import annotations

from dataclasses import dataclass

from dialbench.pipeline.stage import Stage


@dataclass(frozen=True)
class Node:
    name: str
    stage: Stage
    inputs: tuple[str, ...]  # earlier stages whose output this one reads
    after: tuple[str, ...]  # every stage that must finish first (inputs included)
    identity: str


def build_graph(stages: list[Stage]) -> list[Node]:
    nodes: list[Node] = []
    for index, stage in enumerate(stages):
        inputs, after = [], []
        for earlier in nodes[:index]:
            feeds = bool(earlier.stage.writes() & stage.reads())
            if feeds:
                inputs.append(earlier)
            if feeds or earlier.stage.reads() & stage.writes():
                after.append(earlier.name)
        identity = stage.identity([node.identity for node in inputs])
        nodes.append(
            Node(
                name=stage.name or stage.stage,
                stage=stage,
                inputs=tuple(node.name for node in inputs),
                after=tuple(after),
                identity=identity,
            )
        )
    return nodes
