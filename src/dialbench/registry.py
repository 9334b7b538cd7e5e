"""One shape for every extension point: names mapped to `"module:attribute"` paths, imported only
when a name is used, so an optional extra (Ray, torch, a provider SDK) is needed only by those
who choose it.

A registry is one table in the module that owns the extension point (protocols in
`judge/registry.py`, backends in `llm/specs.py`, ...): a new protocol, backend,
executor, encoder, QE estimator, file format, stage or stage printer is its own file plus one
line in that table. Third-party packages add entries without editing dialbench through the
entry-point group the registry names (as lm-evaluation-harness and Inspect do):

    [project.entry-points."dialbench.backends"]
    mybot = "mybot.dialbench:MyBotAPI"

An entry that needs an optional package says so with a `Requirement`, checked when the entry is
used rather than when it is loaded: listing the backends needs none of their packages.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from importlib import import_module, metadata
from importlib.util import find_spec
from typing import Any, Generic, TypeVar, cast

from dialbench.errors import DialbenchError

T = TypeVar("T")
ENTRY_POINT_PREFIX = "dialbench."
BUILT_IN, REGISTERED = "built-in", "registered in this process"


class UnknownName(DialbenchError):
    """A name no entry of the registry has; the message lists the known ones."""


class RefusedEntry(DialbenchError):
    """An entry that cannot be loaded, or is not of the registry's kind: the message names it
    and its origin, `problem` says only what is wrong (for a table that names them already)."""

    def __init__(self, message: str, problem: str) -> None:
        super().__init__(message)
        self.problem = problem


class MissingPackageError(DialbenchError):
    """An optional package that is not installed, or older than the version needed."""


@dataclass(frozen=True)
class Requirement:
    """An optional package an entry needs: the module it imports, the extra that installs it,
    and the oldest release that works, read from the installed distribution's metadata
    (`distribution`, when it is named otherwise than the module: `llama-cpp-python`)."""

    module: str
    extra: str
    minimum: str | None = None
    distribution: str | None = None

    def check(self) -> None:
        """Raise a `MissingPackageError` with the pip command when the package is missing or
        older than `minimum`."""
        install = f"pip install 'dialbench[{self.extra}]'"
        if find_spec(self.module) is None:
            raise MissingPackageError(f"this model needs the {self.module} package: {install}")
        if self.minimum is None:
            return
        from packaging.version import Version

        name = self.distribution or self.module
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            return  # importable without metadata (a source checkout on the path): trusted
        if Version(installed) < Version(self.minimum):
            raise MissingPackageError(
                f"this model needs {name} {self.minimum} or newer, and {installed} is "
                f"installed: {install}"
            )


def load_path(path: str) -> object:
    """The attribute a `"module:attribute"` path names (`attribute` may be dotted)."""
    module, colon, attribute = path.partition(":")
    if not colon or not module or not attribute:
        raise DialbenchError(f"{path!r} is not a 'module:attribute' path")
    found: object = import_module(module)
    for part in attribute.split("."):
        found = getattr(found, part)
    return found


class Registry(Generic[T]):
    """Names to lazily loaded entries of one kind (`what` names the kind in messages).

    Entries are `"module:attribute"` paths or the objects themselves (tests and plugins may
    register either); built-in names come first, in the order given, then plugins'. A registry
    of classes names their `base`: an entry that is no subclass of it is refused when loaded,
    naming the entry and where it comes from, before anything calls it.
    """

    def __init__(
        self,
        what: str,
        entries: Mapping[str, str | T],
        *,
        group: str,
        base: type[Any] | None = None,
    ) -> None:
        self.what = what
        self.group = ENTRY_POINT_PREFIX + group
        self.base = base
        self._entries: dict[str, str | T] = dict(entries)
        self._origins = dict.fromkeys(entries, BUILT_IN)
        self._plugins_read = False
        self._plugins_lock = threading.Lock()
        self._skipped: set[str] = set()

    def _read_plugins(self) -> None:
        """Entry points of the group, read once however many threads ask at the same time; a
        built-in name wins over a plugin's."""
        if self._plugins_read:
            return
        with self._plugins_lock:
            if self._plugins_read:
                return
            for entry in metadata.entry_points(group=self.group):
                if entry.name not in self._entries:
                    self._entries[entry.name] = entry.value
                    dist = entry.dist
                    self._origins[entry.name] = (
                        f"plugin {dist.name} {dist.version}" if dist is not None else "plugin"
                    )
            self._plugins_read = True

    def names(self) -> list[str]:
        self._read_plugins()
        return list(self._entries)

    def __contains__(self, name: object) -> bool:
        self._read_plugins()
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())

    def _entry(self, name: str) -> str | T:
        if name not in self:
            raise UnknownName(self._unknown(name))
        return self._entries[name]

    def _unknown(self, name: str) -> str:
        known = ", ".join(self.names()) or "none"
        return f"unknown {self.what} {name!r} (known: {known})"

    def known_name(self, name: str) -> str:
        """`name` itself when registered, else a ValueError listing the known names: a pydantic
        validator (`AfterValidator(REGISTRY.known_name)`), so a config file reports a name it
        does not know at its own line."""
        if name not in self:
            raise ValueError(self._unknown(name))
        return name

    def origin(self, name: str) -> str:
        """Where an entry comes from: built-in, a plugin's distribution and version, or
        registered in this process (a test's)."""
        self._entry(name)
        return self._origins.get(name, REGISTERED)

    def load(self, name: str) -> T:
        """The entry of `name`, its module imported on first use (Python keeps it); an entry
        that cannot be imported, or is no subclass of the registry's `base`, is a
        `RefusedEntry` naming it and its origin."""
        entry = self._entry(name)
        if not isinstance(entry, str):
            return self._checked(name, entry)
        try:
            loaded = load_path(entry)
        except Exception as error:  # a plugin's module may raise anything while it is imported
            problem = f"cannot be loaded ({type(error).__name__}: {error})"
            raise self._refused(name, problem) from error
        return self._checked(name, loaded)

    def _checked(self, name: str, loaded: object) -> T:
        if self.base is not None and not (
            isinstance(loaded, type) and issubclass(loaded, self.base)
        ):
            raise self._refused(name, f"is {loaded!r}, not a subclass of {self.base.__name__}")
        return cast(T, loaded)

    def _refused(self, name: str, problem: str) -> RefusedEntry:
        entry = self._entries[name]
        path = f" {entry!r}" if isinstance(entry, str) else ""
        return RefusedEntry(f"{self.what} {name!r}{path} ({self.origin(name)}) {problem}", problem)

    def items(self) -> Iterator[tuple[str, T]]:
        """Every entry that loads, for listings (`--help`, an option's choices, the union of
        the stage kinds): one that cannot be loaded is skipped and named once on stderr, so a
        broken plugin fails only the commands that use it by name."""
        for name in self.names():
            try:
                loaded = self.load(name)
            except RefusedEntry as error:
                if name not in self._skipped:
                    self._skipped.add(name)
                    print(f"dialbench: {error}: skipped", file=sys.stderr)
                continue
            yield name, loaded

    def register(self, name: str, entry: str | T) -> None:
        """Add or replace an entry (a plugin's, or a test's)."""
        self._read_plugins()
        self._entries[name] = entry
        self._origins[name] = REGISTERED

    def unregister(self, name: str) -> None:
        self._entries.pop(name, None)
        self._origins.pop(name, None)
