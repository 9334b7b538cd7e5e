"""The closing line on failed work, and `--strict` for CI.

A long command records a failed dialogue or an unscored judgment and goes on, and exits 0 unless
everything failed; the closing line on stderr says what is missing and why, and `--strict` turns
any failure into exit 1, so a CI job cannot pass on half a benchmark.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

import typer
from rich.console import Console

from dialbench.failures import Failures

StrictOption = Annotated[
    bool,
    typer.Option(
        "--strict",
        help="Exit 1 when any item failed (for CI); by default only when every one did.",
    ),
]

stderr = Console(stderr=True)


def close_with_failures(
    counted: Sequence[tuple[str, Failures, int]], *, strict: bool, retry: str
) -> None:
    """One line on stderr per (label, failures, of) with a failure, then `retry` (how to try
    them again); with `strict`, exit 1 after them."""
    failed = [(label, failures, of) for label, failures, of in counted if failures.count]
    for label, failures, of in failed:
        stderr.print(f"{label}{failures.line(of)}", markup=False, highlight=False, soft_wrap=True)
    if not failed:
        return
    stderr.print(retry, markup=False, highlight=False, soft_wrap=True)
    if strict:
        stderr.print("--strict: exit 1 on failed work", markup=False, highlight=False)
        raise typer.Exit(1)
