"""Meta-evaluation: how close each judge or metric is to human annotators, per label, language."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dialbench.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from dialbench.metaeval.api import MetaevalResult, metaeval
    from dialbench.metaeval.config import MetaevalConfig

__all__ = ["MetaevalConfig", "MetaevalResult", "metaeval"]

__getattr__ = lazy_exports(
    __name__, {".api": ["MetaevalResult", "metaeval"], ".config": ["MetaevalConfig"]}
)
