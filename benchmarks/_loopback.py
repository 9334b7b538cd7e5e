"""Start the test suite's loopback OpenAI-compatible server (tests/llm) for a benchmark."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "llm"))

from loopback_server import Loopback, answered_dialogues, start_loopback

__all__ = ["Loopback", "answered_dialogues", "start_loopback"]
