"""Curation (MEDAL §5.1, Appendix E.1): from thousands of judged dialogues, a small balanced
benchmark per language for human experts. `api.curate` is the typed call the CLI
and the pipeline use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dialbench.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from dialbench.curate.api import CurateResult, curate
    from dialbench.curate.config import CurateConfig

__all__ = ["CurateConfig", "CurateResult", "curate"]

__getattr__ = lazy_exports(
    __name__, {".api": ["CurateResult", "curate"], ".config": ["CurateConfig"]}
)
