"""Post-generation filter (MEDAL §3.2): the user side in the wrong language, or playing the bot.

Only the *user* side is checked: a chatbot answering in the wrong language or badly is exactly
what the benchmark measures, so those dialogues are kept. Checks: lingua on every user turn long
enough to identify, assistant-only phrases, and optionally an LLM's yes/no on both questions.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

from pydantic import Field

from dialbench.llm.role_model import Model
from dialbench.prompts import load_prompt
from dialbench.schema import Dialogue, Record, base_language
from dialbench.simulate.language import detected_language, language_name
from dialbench.simulate.transcript import render_transcript

PROMPTS = ("simulate_language_check", "simulate_role_check")
WRONG_LANGUAGE, SWAPPED_ROLES = "user_wrong_language", "user_swapped_roles"


class FilterResult(Record):
    flags: list[str] = Field(default_factory=list, description="why the dialogue is flagged")
    details: list[str] = Field(default_factory=list)


@cache
def assistant_phrases() -> re.Pattern[str]:
    text = (resources.files("dialbench.simulate") / "assistant_phrases.txt").read_text("utf-8")
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    return re.compile("|".join(f"(?:{line})" for line in lines), re.IGNORECASE)


def rule_checks(dialogue: Dialogue) -> FilterResult:
    """lingua and the assistant-phrase list on each user turn."""
    result = FilterResult()
    for index, turn in enumerate(dialogue.turns):
        if turn.role != "user" or not turn.text:
            continue
        found = detected_language(turn.text, dialogue.language)
        if found is not None and found != base_language(dialogue.language):
            result.flags.append(WRONG_LANGUAGE)
            result.details.append(f"turn {index}: lingua says {found}")
        if phrase := assistant_phrases().search(turn.text):
            result.flags.append(SWAPPED_ROLES)
            result.details.append(f"turn {index}: assistant phrase {phrase.group(0)!r}")
    return result


async def llm_checks(dialogue: Dialogue, model: Model) -> FilterResult:
    """Ask the model both questions; an answer without usable probabilities flags nothing."""
    result = FilterResult()
    user_turns = [t for t in dialogue.turns if t.role == "user" and t.text]
    if not user_turns:
        return result
    language = load_prompt("simulate_language_check").format(
        transcript=render_transcript(user_turns), language_name=language_name(dialogue.language)
    )
    roles = load_prompt("simulate_role_check").format(transcript=render_transcript(dialogue.turns))
    in_language = await model.yes_probability([{"role": "user", "content": language}])
    swapped = await model.yes_probability([{"role": "user", "content": roles}])
    if in_language.p_yes is not None and in_language.p_yes < 0.5:
        result.flags.append(WRONG_LANGUAGE)
        result.details.append(f"{model.spec}: P(all in language) = {in_language.p_yes:.2f}")
    if swapped.p_yes is not None and swapped.p_yes > 0.5:
        result.flags.append(SWAPPED_ROLES)
        result.details.append(f"{model.spec}: P(user acts as assistant) = {swapped.p_yes:.2f}")
    return result


async def check_dialogue(dialogue: Dialogue, *, rules: bool, llm: Model | None) -> FilterResult:
    """Every enabled check; flags are deduplicated, details keep each finding."""
    results = [rule_checks(dialogue)] if rules else []
    if llm is not None:
        results.append(await llm_checks(dialogue, llm))
    flags = sorted({flag for r in results for flag in r.flags})
    return FilterResult(flags=flags, details=[d for r in results for d in r.details])
