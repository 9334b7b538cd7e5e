"""MEDAL-style user-chatbot dialogue simulation with a validated user agent."""

from dialbench.simulate.api import simulate
from dialbench.simulate.config import SimulationConfig, load_config
from dialbench.simulate.simulation import SimulationSummary, build_contexts

__all__ = ["SimulationConfig", "SimulationSummary", "build_contexts", "load_config", "simulate"]
