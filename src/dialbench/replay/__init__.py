"""Recorded conversations replayed with a candidate chatbot: its replies on the recorded
prefixes, stored beside the recorded dialogues and paired with them by seed unit."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dialbench.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from dialbench.replay.api import replay
    from dialbench.replay.config import ReplayConfig
    from dialbench.replay.replaying import ReplayResult

__all__ = ["ReplayConfig", "ReplayResult", "replay"]

__getattr__ = lazy_exports(
    __name__,
    {".api": ["replay"], ".config": ["ReplayConfig"], ".replaying": ["ReplayResult"]},
)
