"""Dialogues as the plain text judges read: one numbered line per turn, USER or CHATBOT."""

from __future__ import annotations

from collections.abc import Sequence

from dialbench.schema import Turn

SPEAKERS = {"user": "USER", "assistant": "CHATBOT"}


def numbered_transcript(turns: Sequence[Turn]) -> str:
    """Turn numbers match `Target.turn_index`, so a judge's comment can point at a turn."""
    return "\n".join(f"[{i}] {SPEAKERS[t.role]}: {t.text}" for i, t in enumerate(turns))
