"""A judged run whose truth is known, for the walk-through of figures corrected by human labels
(docs/corrected.md): two chatbots on the same seeds in six languages, an issues judge whose error
differs by language, and the labels careful annotators would give every dialogue.

Writes into OUT: `dialogues.jsonl` and `judgments.jsonl` (what `dialbench import` reads),
`truth.jsonl` (an annotation per dialogue: what `label_sample.py` hands out for the dialogues a
sample picked, as annotators would label them) and `truth.md` (the true issue rates). The judge
is simulated, not a model, so that what correction should recover is known:

- each dialogue lacks empathy with a chatbot's true rate (bot-a 20%, bot-b 30%, the same in
  every language), shifted by its seed's difficulty (dialogues of one seed are alike);
- the judge finds 80% of the dialogues that lack empathy, and flags 10% of those that do not,
  except in German, where it flags 40% (about 20 points too many), and Chinese, where it finds
  only 60% (about 5 points too few).

So the raw figures say both chatbots lack empathy more in German than elsewhere, which is the
judge's error, and the corrected ones should not.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from dialbench.issue_labels import load_issue_labels
from dialbench.schema import (
    Annotation,
    Dialogue,
    Judgment,
    Participants,
    SeedContext,
    Target,
    Turn,
)

LANGUAGES = ("en", "zh", "de", "fr", "pt", "es")
CHATBOTS = {"bot-a": 0.20, "bot-b": 0.30}  # true rate of dialogues lacking empathy
SENSITIVITY = {"zh": 0.60}  # the judge finds 80% elsewhere
FALSE_ALARMS = {"de": 0.40}  # the judge flags 10% of the others elsewhere
JUDGE = "sim:issues-judge"
ISSUES = tuple(label.key for label in load_issue_labels().selected(include_optional=False))
OPENINGS = {
    "en": "My cat has been ill all week and I am worried.",
    "zh": "我的猫病了一个星期，我很担心。",
    "de": "Meine Katze ist seit einer Woche krank und ich mache mir Sorgen.",
    "fr": "Mon chat est malade depuis une semaine et je m'inquiète.",
    "pt": "O meu gato está doente há uma semana e estou preocupado.",
    "es": "Mi gato lleva una semana enfermo y estoy preocupado.",
}
REPLIES = {
    "en": ("That sounds hard; how is your cat today?", "Take it to a vet."),
    "zh": ("听起来很难受，你的猫今天怎么样？", "带它去看兽医。"),
    "de": ("Das klingt schwer; wie geht es deiner Katze heute?", "Geh zum Tierarzt."),
    "fr": ("Ça a l'air difficile ; comment va ton chat aujourd'hui ?", "Va chez le vétérinaire."),
    "pt": ("Parece difícil; como está o teu gato hoje?", "Leva-o ao veterinário."),
    "es": ("Suena difícil; ¿cómo está tu gato hoy?", "Llévalo al veterinario."),
}


def issues(lacks_empathy: bool) -> dict[str, bool]:
    return {issue: issue == "lacks_empathy" and lacks_empathy for issue in ISSUES}


def overall(lacks_empathy: bool) -> int:
    return 3 if lacks_empathy else 5


def simulate(
    seeds: int, random_seed: int
) -> tuple[list[Dialogue], list[Judgment], list[Annotation]]:
    rng = np.random.default_rng(random_seed)
    dialogues, judgments, truth = [], [], []
    for language in LANGUAGES:
        for index in range(seeds):
            seed = SeedContext(language=language, scene=f"A sick pet ({index})", persona="worried")
            difficulty = rng.normal(0, 0.8)  # shared by the seed's dialogues
            for chatbot, rate in CHATBOTS.items():
                logit = np.log(rate / (1 - rate)) + difficulty
                lacks = bool(rng.random() < 1 / (1 + np.exp(-logit)))
                dialogue = Dialogue(
                    language=language,
                    source="simulated",
                    seed=seed,
                    participants=Participants(user="sim:user", assistant=chatbot),
                    turns=[
                        Turn(role="user", text=OPENINGS[language], model="sim:user"),
                        Turn(role="assistant", text=REPLIES[language][lacks], model=chatbot),
                    ],
                )
                found = rng.random() < (
                    SENSITIVITY.get(language, 0.8) if lacks else FALSE_ALARMS.get(language, 0.1)
                )
                target = Target(dialogue_id=dialogue.id)
                dialogues.append(dialogue)
                judgments.append(
                    Judgment(
                        protocol="issues",
                        judge_model=JUDGE,
                        target=target,
                        result={"issues": issues(bool(found)), "overall": overall(bool(found))},
                        parse_status="ok",
                    )
                )
                truth.append(
                    Annotation(
                        annotator_id="annotator",
                        target=target,
                        labels={"issues": issues(lacks), "overall": overall(lacks)},
                    )
                )
    return dialogues, judgments, truth


def rates(dialogues: list[Dialogue], truth: list[Annotation]) -> str:
    lacking: dict[tuple[str, str], list[bool]] = {}
    for dialogue, annotation in zip(dialogues, truth, strict=True):
        key = (str(dialogue.participants.assistant), dialogue.language)
        labels = annotation.labels["issues"]
        assert isinstance(labels, dict)
        lacking.setdefault(key, []).append(bool(labels["lacks_empathy"]))
    lines = ["| chatbot | language | lacks empathy (truth) |", "| --- | --- | --- |"]
    lines += [f"| {c} | {lang} | {np.mean(v):.0%} |" for (c, lang), v in sorted(lacking.items())]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--seeds", type=int, default=80, help="seeds per language")
    parser.add_argument("--random-seed", type=int, default=7)
    args = parser.parse_args()
    dialogues, judgments, truth = simulate(args.seeds, args.random_seed)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, records in (("dialogues", dialogues), ("judgments", judgments), ("truth", truth)):
        lines = "".join(record.model_dump_json() + "\n" for record in records)
        (args.out / f"{name}.jsonl").write_text(lines, encoding="utf-8")
    (args.out / "truth.md").write_text(rates(dialogues, truth), encoding="utf-8")
    print(f"wrote {len(dialogues)} dialogues, judged and labelled, to {args.out}")


if __name__ == "__main__":
    main()
