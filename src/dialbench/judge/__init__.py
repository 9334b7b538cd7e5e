"""LLM judges of chatbot dialogues: MEDAL issues + overall, DiQAD holistic 0-2, turn submetrics;
a protocol per package under `protocols/`, registered in `registry.py`."""

from dialbench.judge.settings import JudgeSettings
from dialbench.judge.stage import JudgeConfig, JudgeRunSummary, judge

__all__ = ["JudgeConfig", "JudgeRunSummary", "JudgeSettings", "judge"]
