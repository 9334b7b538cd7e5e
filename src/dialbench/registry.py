"""One shape for every extension point: names mapped to `"module:attribute"` paths, imported only
when a name is used, so an optional extra (Ray, torch, a provider SDK) is needed only by those
who choose it.

A registry is one table in the module that owns the extension point (protocols in
`judge/registry.py`, backends in `llm/backends/__init__.py`, ...): a new protocol, backend,
executor, encoder, QE estimator, file format, stage or stage printer is its own file plus one
line in that table. Third-party packages add entries without editing dialbench through the
entry-point group the registry names (as lm-evaluation-harness and Inspect do):

    [project.entry-points."dialbench.backends"]
    mybot = "mybot.dialbench:MyBotAPI"
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from importlib import import_module, metadata
from typing import Generic, TypeVar, cast

from dialbench.errors import DialbenchError

T = TypeVar("T")
ENTRY_POINT_PREFIX = "dialbench."
BUILT_IN, REGISTERED = "built-in", "registered in this process"


class UnknownName(DialbenchError):
    """A name no entry of the registry has; the message lists the known ones."""


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
    register either); built-in names come first, in the order given, then plugins'.
    """

    def __init__(self, what: str, entries: Mapping[str, str | T], *, group: str) -> None:
        self.what = what
        self.group = ENTRY_POINT_PREFIX + group
        self._entries: dict[str, str | T] = dict(entries)
        self._origins = dict.fromkeys(entries, BUILT_IN)
        self._plugins_read = False

    def _read_plugins(self) -> None:
        """Entry points of the group, read once; a built-in name wins over a plugin's."""
        if self._plugins_read:
            return
        self._plugins_read = True
        for entry in metadata.entry_points(group=self.group):
            if entry.name not in self._entries:
                self._entries[entry.name] = entry.value
                dist = entry.dist
                self._origins[entry.name] = (
                    f"plugin {dist.name} {dist.version}" if dist is not None else "plugin"
                )

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
        """The entry of `name`, its module imported on first use (Python keeps it)."""
        entry = self._entry(name)
        return cast(T, load_path(entry)) if isinstance(entry, str) else entry

    def items(self) -> Iterator[tuple[str, T]]:
        """Every entry, loaded: for listings that need them all (`--help`, the report)."""
        for name in self.names():
            yield name, self.load(name)

    def register(self, name: str, entry: str | T) -> None:
        """Add or replace an entry (a plugin's, or a test's)."""
        self._read_plugins()
        self._entries[name] = entry
        self._origins[name] = REGISTERED

    def unregister(self, name: str) -> None:
        self._entries.pop(name, None)
        self._origins.pop(name, None)
