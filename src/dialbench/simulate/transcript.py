"""Dialogue text as the agents see it, and the user's end-of-dialogue marker.

The marker is matched loosely (case, spaces or hyphens for underscores, brackets, quotes) because
models rarely reproduce it exactly; it ends the dialogue and is never kept in a turn's text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from dialbench.schema import SeedContext, Turn, speaker_turns
from dialbench.simulate.language import language_name

END_MARKER = "END_OF_DIALOGUE"
USER_TAG, CHATBOT_TAG = "USER", "CHATBOT"
# A transcript holds one message a line: the user's message ends at the first line break.
TRANSCRIPT_STOPS = ("\n", f"{CHATBOT_TAG}:", f"{USER_TAG}:")
NO_MESSAGES_YET = "(no messages yet)"

_END = re.compile(
    r"[\[<(*\"'`]*\s*\bend[\s_-]*of[\s_-]*(?:the[\s_-]*)?dialog(?:ue)?\s*[\]>)*\"'`]*", re.I
)
_LABEL = re.compile(
    r"^\s*(?:\*\*)?(?:user|human|用户|usuario|usuário|utilisateur|nutzer)(?:\*\*)?\s*[:：]\s*", re.I
)
_QUOTES = "\"'“”„«»「」『』"
_HEADING = re.compile(r"^#+\s*")  # small models open a message as a markdown heading: "### Hi"


def split_end_marker(text: str) -> tuple[str, bool]:
    """(text without the marker, whether the marker was there)."""
    cleaned, found = _END.subn(" ", text)
    cleaned = re.sub(r"\s+([.!?。！？])", r"\1", " ".join(cleaned.split()))
    return ("" if found and not cleaned.strip(" .") else cleaned), found > 0


def clean_user_text(raw: str) -> str:
    """A generated user message without a speaker label, bold markers, wrapping quotes or a
    continuation into the chatbot's line."""
    text = raw.split(f"{CHATBOT_TAG}:")[0].strip()
    text = _LABEL.sub("", _HEADING.sub("", text)).strip().strip("*").strip()
    if len(text) >= 2 and text[0] in _QUOTES and text[-1] in _QUOTES:
        text = text[1:-1].strip()
    return text


def _one_line(text: str) -> str:
    return " ".join(text.split())


def render_transcript(turns: Sequence[Turn], last_user: str | None = None) -> str:
    """`USER: ...` / `CHATBOT: ...` lines, optionally with a candidate user message appended.

    Tool turns are left out: a person talking to a chatbot reads its replies, not its tool calls,
    so neither the simulated user nor the validator and filters judging its turns see them."""
    lines = [
        f"{USER_TAG if t.role == 'user' else CHATBOT_TAG}: {_one_line(t.text)}"
        for t in speaker_turns(turns)
    ]
    if last_user is not None:
        lines.append(f"{USER_TAG}: {_one_line(last_user)}")
    return "\n".join(lines) if lines else NO_MESSAGES_YET


def context_values(context: SeedContext) -> dict[str, str]:
    """The seed context as prompt fields; a missing gender means the scene or persona sets it."""
    language = context.language or "en"
    return {
        "scene": context.scene or "(none)",
        "persona": context.persona or "(none)",
        "affective_state": context.affective_state or "(none)",
        "gender": context.gender or "as the scene or persona implies",
        "language_name": language_name(language),
        "culture": context.culture or f"a country where {language_name(language)} is spoken",
        "end_marker": END_MARKER,
    }
