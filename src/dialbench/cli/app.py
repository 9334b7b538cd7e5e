"""The `dialbench` Typer application, and its entry point: a user error is one line on stderr,
never a traceback. Each command module under `cli/` adds its commands to `app`."""

from __future__ import annotations

import sys

import typer
from pydantic import ValidationError

from dialbench.errors import DialbenchError
from dialbench.llm.daemon_threads import still_running

app = typer.Typer(
    name="dialbench",
    help="Benchmark LLMs as multilingual chatbots and as dialogue evaluators.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def validation_message(invalid: ValidationError) -> str:
    """An option's first problem, in one line."""
    problem = invalid.errors()[0]
    where = ".".join(str(part) for part in problem["loc"])
    return f"option {where}: {problem['msg']}" if where else problem["msg"]


def main() -> None:
    """Entry point: a user error is one line on stderr and exit code 1, never a traceback."""
    try:
        app()
    except DialbenchError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(1)
    except OSError as error:  # what the file system refused: a folder missing, no permission
        where = f"{error.filename}: " if error.filename else ""
        print(f"error: {where}{error.strerror or error}", file=sys.stderr)
        sys.exit(1)
    except ValidationError as invalid:
        print(f"error: {validation_message(invalid)}", file=sys.stderr)
        sys.exit(2)
    finally:  # the threads left running end with the process: say which calls they were
        for line in still_running():
            print(f"dialbench: {line}", file=sys.stderr)
