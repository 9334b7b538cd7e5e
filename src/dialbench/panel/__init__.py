"""Judge panels: several judges' judgments of one protocol as one rater's, by majority, median
or a vote weighted by each member's agreement with the humans in the item's language."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dialbench.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from dialbench.panel.api import PanelResult, panel
    from dialbench.panel.config import PanelConfig

__all__ = ["PanelConfig", "PanelResult", "panel"]

__getattr__ = lazy_exports(__name__, {".api": ["PanelResult", "panel"], ".config": ["PanelConfig"]})
