"""A dialogue as the one text DiQAD's classifiers read, optionally with the paper's positive or
negative user reaction appended. Tool turns are left out: the paper's text is questions and
responses, and a tool's result spliced in as either would be read as something someone said."""

from __future__ import annotations

from typing import Literal

from dialbench.schema import Dialogue, base_language, speaker_turns

Sentiment = Literal["original", "pos", "neg"]
# The paper's templates (English, and its Chinese originals).
POSITIVE = {
    "en": "question: ok thanks! response: you are welcome!",
    "zh": "question: 好的多谢！response: 不谢！",
}
NEGATIVE = {"en": "question: I don't think so.", "zh": "question: 不是这样的。"}


def splice(dialogue: Dialogue, sentiment: Sentiment = "original") -> str:
    parts = [
        f"{'question' if t.role == 'user' else 'response'}: {t.text}"
        for t in speaker_turns(dialogue.turns)
    ]
    language = "zh" if base_language(dialogue.language) == "zh" else "en"
    if sentiment == "pos":
        parts.append(POSITIVE[language])
    elif sentiment == "neg":
        parts.append(NEGATIVE[language])
    return " ".join(parts)
