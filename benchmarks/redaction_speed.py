"""Speed of personal-data redaction, which runs on every turn of a production log on import.

Generates a multilingual mix of N turns (en, de, es, fr, pt, zh, ja; a user turn is one
sentence, an assistant turn four) without personal data (everyday sentences, and dates, prices,
order numbers that must stay) and with it (an e-mail address, phone, card, account or name
planted in each turn), and prints turns per CPU second of one core for `redact_text` on each
mix and for `redact_dialogue` on the same turns as dialogues of 8 turns (copying the records,
the new id).
Usage: .venv/bin/python benchmarks/redaction_speed.py [N]
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "io"))

from personal_data_samples import FOUND, KEPT, PLAIN

from dialbench.io.personal_data import redact_dialogue, redact_text
from dialbench.schema import Dialogue, Turn

LANGUAGES = ("en", "de", "es", "fr", "pt", "zh", "ja")


def generated_turns(count: int, personal: bool) -> list[tuple[str, str]]:
    """(language, text) of `count` turns: user and assistant in turn, each language in turn."""
    rng = random.Random(0)
    clean = {
        language: [s for lang, s in PLAIN + KEPT if lang == language] for language in LANGUAGES
    }
    planted = {
        language: [s for lang, _, s, _ in FOUND if lang == language] for language in LANGUAGES
    }
    turns = []
    for index in range(count):
        language = LANGUAGES[(index // 8) % len(LANGUAGES)]
        sentences = rng.choices(clean[language], k=1 if index % 2 == 0 else 4)
        if personal:
            sentences[rng.randrange(len(sentences))] = rng.choice(planted[language])
        separator = "" if language in {"zh", "ja"} else " "
        turns.append((language, separator.join(sentences)))
    return turns


def timed(label: str, turns: int, characters: int, action: Callable[[], object]) -> None:
    """Per second of the process's own CPU time: the figure of one core, however busy the
    machine's other cores are (the wall-clock rate beside it)."""
    wall, cpu = time.perf_counter(), time.process_time()
    action()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(
        f"{label:<40} {turns / cpu:8,.0f} turns/s  {characters / cpu / 1e6:4.1f} M chars/s"
        f"  (wall clock {turns / wall:,.0f} turns/s)"
    )


def as_dialogues(turns: list[tuple[str, str]]) -> list[Dialogue]:
    return [
        Dialogue(
            language=turns[start][0],
            turns=[
                Turn(role=("user", "assistant")[k % 2], text=text)
                for k, (_, text) in enumerate(turns[start : start + 8])
            ],
        )
        for start in range(0, len(turns), 8)
    ]


def redact_texts(turns: list[tuple[str, str]]) -> None:
    for language, text in turns:
        redact_text(text, language)


def redact_dialogues(dialogues: list[Dialogue]) -> None:
    for dialogue in dialogues:
        redact_dialogue(dialogue)


def main(count: int) -> None:
    print(f"{count:,} turns in en, de, es, fr, pt, zh, ja; one process, one core")
    for personal in (False, True):
        turns = generated_turns(count, personal)
        characters = sum(len(text) for _, text in turns)
        kind = "with personal data" if personal else "without personal data"
        timed(f"redact_text, {kind}", count, characters, partial(redact_texts, turns))
        dialogues = partial(redact_dialogues, as_dialogues(turns))
        timed(f"redact_dialogue, {kind}", count, characters, dialogues)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
