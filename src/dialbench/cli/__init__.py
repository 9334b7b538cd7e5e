"""The `dialbench` command: a thin layer over the Python API, one module per group of commands."""

from __future__ import annotations

import sys

import typer
from pydantic import ValidationError

from dialbench.errors import DialbenchError

app = typer.Typer(
    name="dialbench",
    help="Benchmark LLMs as multilingual chatbots and as dialogue evaluators.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

from dialbench.cli import (  # noqa: E402  (registers their commands)
    annotate,
    arena,
    batch,
    curate,
    judge,
    metaeval,
    metric,
    models,
    records,
    report,
    run,
    selfchat,
    serve,
    simulate,
    stats,
)

__all__ = [
    "annotate",
    "app",
    "arena",
    "batch",
    "curate",
    "judge",
    "main",
    "metaeval",
    "metric",
    "models",
    "records",
    "report",
    "run",
    "selfchat",
    "serve",
    "simulate",
    "stats",
]


def main() -> None:
    """Entry point: a user error is one line on stderr and exit code 1, never a traceback."""
    try:
        app()
    except DialbenchError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(1)
    except ValidationError as invalid:
        problem = invalid.errors()[0]
        where = ".".join(str(part) for part in problem["loc"])
        print(
            f"error: option {where}: {problem['msg']}" if where else f"error: {problem['msg']}",
            file=sys.stderr,
        )
        sys.exit(2)
