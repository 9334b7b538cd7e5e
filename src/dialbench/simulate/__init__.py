"""MEDAL-style user-chatbot dialogue simulation with a validated user agent."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dialbench.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from dialbench.simulate.api import simulate
    from dialbench.simulate.config import SimulationConfig, load_config
    from dialbench.simulate.simulation import SimulationResult, build_contexts

__all__ = ["SimulationConfig", "SimulationResult", "build_contexts", "load_config", "simulate"]

__getattr__ = lazy_exports(
    __name__,
    {
        ".api": ["simulate"],
        ".config": ["SimulationConfig", "load_config"],
        ".simulation": ["SimulationResult", "build_contexts"],
    },
)
