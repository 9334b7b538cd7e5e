"""The `dialbench` Typer application, and its entry point: a user error is one line on stderr,
never a traceback. Each command module under `cli/` adds its commands to `app`; a command's
module is imported only when that command runs (or shows its help), so every command starts
without the others' features and libraries."""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any, cast

import typer
from typer.core import TyperCommand, TyperGroup

from dialbench.cli.command_table import COMMANDS
from dialbench.errors import DialbenchError

if TYPE_CHECKING:
    from pydantic import ValidationError
    from typer import _click


class LazyGroup(TyperGroup):
    """The top-level group: commands not yet imported stand in as their name and summary (what
    the top-level help lists), in the order of cli/command_table.py; the one a command line
    names is imported and built when it is resolved."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        built = self.commands
        self.commands = {
            **{name: built.get(name) or _unloaded(name) for name in COMMANDS},
            **built,
        }

    def resolve_command(
        self, ctx: _click.Context, args: list[str]
    ) -> tuple[str | None, _click.Command | None, list[str]]:
        if args and isinstance(self.commands.get(args[0]), _Unloaded):
            self.commands[args[0]] = _built(args[0])
        return super().resolve_command(ctx, args)


class _Unloaded(TyperCommand):
    """A command whose module is not imported yet: its name and summary only."""


def _unloaded(name: str) -> _Unloaded:
    return _Unloaded(name=name, help=COMMANDS[name].summary)


def _built(name: str) -> _click.Command:
    """The command `name`, its module imported (which adds it to `app`)."""
    importlib.import_module(f"dialbench.cli.{COMMANDS[name].module}")
    return cast(TyperGroup, typer.main.get_command(app)).commands[name]


def _no_options() -> None:
    """The group's own callback: it takes no options, and makes `app` a group before any
    command module has added a command to it."""


app = typer.Typer(
    name="dialbench",
    help="Benchmark LLMs as multilingual chatbots and as dialogue evaluators.",
    cls=LazyGroup,
    callback=_no_options,
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
    except Exception as error:
        from pydantic import ValidationError  # loaded already where one was raised

        if not isinstance(error, ValidationError):
            raise
        print(f"error: {validation_message(error)}", file=sys.stderr)
        sys.exit(2)
    finally:  # the threads left running end with the process: say which calls they were
        _say_still_running()


def _say_still_running() -> None:
    """The calls given up on while they still ran; none unless a command started threads (and
    so imported the module that keeps them)."""
    if "dialbench.llm.daemon_threads" in sys.modules:
        from dialbench.llm.daemon_threads import still_running

        for line in still_running():
            print(f"dialbench: {line}", file=sys.stderr)
