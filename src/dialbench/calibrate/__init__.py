"""Judges mapped onto the humans' scale: a monotone map per judge, configuration, protocol,
dimension and language, fitted on the run's human labels and cross-validated over dialogues."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dialbench.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from dialbench.calibrate.api import CalibrateResult, calibrate
    from dialbench.calibrate.config import CalibrateConfig

__all__ = ["CalibrateConfig", "CalibrateResult", "calibrate"]

__getattr__ = lazy_exports(
    __name__, {".api": ["CalibrateResult", "calibrate"], ".config": ["CalibrateConfig"]}
)
