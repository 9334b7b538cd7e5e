"""BotChat's Arena as a stage: every pair of self-chats from one ChatSEED, judged both ways."""

from __future__ import annotations

from typing import Literal

from dialbench.pipeline.stages.judge import JudgeStage


class ArenaStage(JudgeStage):
    """The judge stage with the Arena protocol (or GTEval); ratings are in the report."""

    stage: Literal["arena"]  # type: ignore[assignment]
    protocol: Literal["arena", "gteval"] = "arena"
