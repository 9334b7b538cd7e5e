"""LLM judges of chatbot dialogues: MEDAL issues + overall, DiQAD holistic 0-2, turn submetrics;
a protocol per package under `protocols/`, registered in `registry.py`."""

from dialbench.judge.api import judge
from dialbench.judge.config import JudgeConfig
from dialbench.judge.judging import JudgeRunSummary
from dialbench.judge.settings import JudgeSettings

__all__ = ["JudgeConfig", "JudgeRunSummary", "JudgeSettings", "judge"]
