"""A package's face without its weight: the names its `__init__.py` exports, each imported from
its module when first asked for (PEP 562). Importing `dialbench.judge.config` runs
`dialbench/judge/__init__.py`; were the package to import its call there, every command and
every low module that names a config would load the judging machinery and its libraries."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, Iterable[str]]) -> Callable[[str], Any]:
    """A module `__getattr__` for `package`, which finds each exported name in its module
    (`exports`: module, relative to the package as in `.api`, -> the names it gives) and keeps
    it, so the next access is an ordinary attribute."""
    homes = {name: module for module, names in exports.items() for name in names}

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home, package), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
