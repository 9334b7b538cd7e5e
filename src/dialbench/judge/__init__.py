"""LLM judges of chatbot dialogues: MEDAL issues + overall, DiQAD holistic 0-2, turn submetrics."""
