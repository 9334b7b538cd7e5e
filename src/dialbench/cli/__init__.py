"""The `dialbench` command: a thin layer over the Python API, one module per group of commands."""

from dialbench.cli import (  # the command modules register their commands on `app`
    annotate,
    arena,
    batch,
    check,
    compare,
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
from dialbench.cli.app import app, main

__all__ = [
    "annotate",
    "app",
    "arena",
    "batch",
    "check",
    "compare",
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
