"""This tree's `src` against another version's, for the benchmarks that time both in turn
(`--baseline SRC`, e.g. the `src` of a `git worktree` of an older commit): the versions, the
environment a console script of one runs in, and the line that compares them."""

from __future__ import annotations

import os
from pathlib import Path

THIS_TREE = Path(__file__).resolve().parents[1] / "src"


def compared_versions(baseline: Path | None) -> dict[str, Path]:
    """Each version's `src` by name, the baseline first where there is one."""
    if baseline is None:
        return {"this tree": THIS_TREE}
    return {"baseline": baseline.resolve(), "this tree": THIS_TREE}


def environment(source: Path) -> dict[str, str]:
    """A console script's environment that imports dialbench from `source`."""
    return {**os.environ, "PYTHONPATH": str(source), "MPLBACKEND": "Agg"}


def shown(what: str, seconds: dict[str, float]) -> None:
    """One line: each version's seconds, and this tree's over the baseline's."""
    each = ", ".join(f"{name} {value:.3f} s" for name, value in seconds.items())
    if "baseline" in seconds:
        each += f" (this tree / baseline {seconds['this tree'] / seconds['baseline']:.3f})"
    print(f"{what}: {each}")
