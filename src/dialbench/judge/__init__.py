"""LLM judges of chatbot dialogues: MEDAL issues + overall, DiQAD holistic 0-2, turn submetrics;
a protocol per package under `protocols/`, registered in `registry.py`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dialbench.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from dialbench.judge.api import judge
    from dialbench.judge.config import JudgeConfig
    from dialbench.judge.judging import JudgeResult
    from dialbench.judge.settings import JudgeSettings

__all__ = ["JudgeConfig", "JudgeResult", "JudgeSettings", "judge"]

__getattr__ = lazy_exports(
    __name__,
    {
        ".api": ["judge"],
        ".config": ["JudgeConfig"],
        ".judging": ["JudgeResult"],
        ".settings": ["JudgeSettings"],
    },
)
