"""The `dialbench` command: a thin layer over the Python API, one module per group of commands
(cli/command_table.py says which), each imported when one of its commands runs."""

from dialbench.cli.app import app, main

__all__ = ["app", "main"]
