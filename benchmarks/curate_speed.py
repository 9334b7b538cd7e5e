"""Speed of `curate` over a large judged run, the situation it is for: thousands of judged
dialogues per language, 100 picked per language.

Builds a store of N dialogues per language (en, zh, de, fr, pt, es; 4 user models x 8 chatbots;
issues drawn at random, 3% commented as mixed-language) with one issues judgment each, then
times the whole stage (read, exclude, select, store, write the files) and the selection alone.
Usage: .venv/bin/python benchmarks/curate_speed.py [N]
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from pathlib import Path

from dialbench.curate.api import curate
from dialbench.curate.config import CurateConfig
from dialbench.curate.selection import Candidate, select_balanced
from dialbench.issue_labels import load_issue_labels
from dialbench.schema import Dialogue, Judgment, Participants, Target, Turn
from dialbench.store import RunStore

LANGUAGES = ("en", "zh", "de", "fr", "pt", "es")
USERS = [f"user-{n}" for n in range(4)]
CHATBOTS = [f"chatbot-{n}" for n in range(8)]
ISSUES = [label.key for label in load_issue_labels().selected(include_optional=False)]


def judged_store(folder: Path, per_language: int) -> int:
    rng = random.Random(0)
    dialogues, judgments = [], []
    for language in LANGUAGES:
        for i in range(per_language):
            dialogue = Dialogue(
                language=language,
                participants=Participants(user=rng.choice(USERS), assistant=rng.choice(CHATBOTS)),
                turns=[
                    Turn(role=("user", "assistant")[k % 2], text=f"{language} turn {i}.{k}")
                    for k in range(8)
                ],
            )
            flagged = {issue for issue in ISSUES if rng.random() < 0.12}
            comments = {issue: f"turn 4 is {issue}" for issue in flagged}
            if rng.random() < 0.03:
                flagged.add("uninterpretable")
                comments["uninterpretable"] = "turn 4 switches to another language"
            result = {
                "issues": {issue: issue in flagged for issue in ISSUES},
                "comments": comments,
                "overall": rng.randint(3, 5) if not flagged else rng.randint(1, 4),
            }
            dialogues.append(dialogue)
            judgments.append(
                Judgment(
                    protocol="issues",
                    judge_model="judge",
                    target=Target(dialogue_id=dialogue.id),
                    parse_status="ok",
                    result=result,
                )
            )
    with RunStore.open(folder) as store, store.invocation("benchmark") as run:
        store.add(dialogues, run)
        store.add(judgments, run)
    return len(dialogues)


def main(per_language: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        run = Path(folder) / "run"
        total = judged_store(run, per_language)
        print(f"{total:,} judged dialogues ({per_language:,} per language, 8 turns each)")
        start = time.perf_counter()
        result = curate(CurateConfig(benchmark="speed", per_language=100), run)
        seconds = time.perf_counter() - start
        picked = len(result.benchmark.items)
        print(f"curate (whole stage)    {seconds:7.2f} s  {total / seconds:9,.0f} dialogues/s")
        rng = random.Random(1)
        pool = [
            Candidate(
                dialogue_id=f"d-{i}",
                language="en",
                user=rng.choice(USERS),
                chatbot=rng.choice(CHATBOTS),
                issues=frozenset(issue for issue in ISSUES if rng.random() < 0.12),
                overall=rng.randint(1, 5),
            )
            for i in range(per_language)
        ]
        start = time.perf_counter()
        select_balanced(pool, size=100, issue_types=ISSUES, top_overall=5, seed=0)
        alone = time.perf_counter() - start
        print(f"selection of 100 from {per_language:,} (one language) {alone:7.3f} s")
        relaxed = sum(bool(item.relaxed) for item in result.benchmark.items)
        print(f"picked {picked} ({relaxed} with a relaxed requirement)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
