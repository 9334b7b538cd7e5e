"""The order a pipeline's stages may run in, and each stage's identity.

A stage waits for every earlier stage that writes what it reads (its inputs) and for every
earlier stage that reads what it writes (so a later simulation does not change the dialogues
a judge is reading). Stages with no such link run at the same time.

An identity is planned before any stage runs, and settled again when the stages a node waits for
have (`settled`): what they wrote can change the records it reads from the store
(`Stage.store_hashes`), and then its identity and those of the stages reading from it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from dialbench.pipeline.stage import Stage


@dataclass(frozen=True)
class Node:
    name: str
    stage: Stage
    inputs: tuple[str, ...]  # earlier stages whose output this one reads
    after: tuple[str, ...]  # every stage that must finish first (inputs included)
    upstream: tuple[str, ...]  # the identities of its inputs, as its own was made with
    identity: str


def build_graph(stages: list[Stage], run_dir: Path) -> list[Node]:
    """The stages as nodes, with identities planned on the run directory as it is now."""
    nodes: list[Node] = []
    for index, stage in enumerate(stages):
        inputs, after = [], []
        for earlier in nodes[:index]:
            feeds = bool(earlier.stage.writes() & stage.reads())
            if feeds:
                inputs.append(earlier)
            if feeds or earlier.stage.reads() & stage.writes():
                after.append(earlier.name)
        upstream = tuple(node.identity for node in inputs)
        nodes.append(
            Node(
                name=stage.name or stage.stage,
                stage=stage,
                inputs=tuple(node.name for node in inputs),
                after=tuple(after),
                upstream=upstream,
                identity=stage.identity(list(upstream), stage.store_hashes(run_dir)),
            )
        )
    return nodes


def settled(node: Node, identities: Mapping[str, str], run_dir: Path) -> Node:
    """The node once the stages it waits for have settled (`identities`: theirs, by name):
    planned anew where it reads records from the store or an input's identity changed."""
    upstream = tuple(identities[name] for name in node.inputs)
    stored = node.stage.store_hashes(run_dir)
    if not stored and upstream == node.upstream:
        return node
    identity = node.stage.identity(list(upstream), stored)
    return replace(node, upstream=upstream, identity=identity)
