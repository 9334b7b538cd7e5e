"""Translate the packaged metrics' English training dialogues into six languages, the seed
paper's MT augmentation, as a job that grows over several runs.

Dialogue after dialogue, DBDC3's English training dialogues and chitchat-dataset's training
chats taken in turn (each in the order of a hash of its id, cut to its first turns), every turn
into zh de fr pt es ja with the packaged local translator. After each dialogue its six lines are
appended to scripts/data/corpus_mt.jsonl (committed: training reads it, needing no translator),
so a killed run loses at most the dialogue in hand, and that one's finished calls sit in the
runner's cache (--cache). A re-run skips what the file holds and goes on from there; the quality
filter (QE, top k% by rank) is applied when training reads the file, not here.

Usage: .venv/bin/python scripts/translate_corpora.py [--minutes M] [--dialogues N] [--threads T]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from metric_data import (
    CORPUS_TRANSLATIONS,
    MT_LANGUAGES,
    chitchat_dialogues,
    dbdc_dialogues,
    dbdc_run,
    hash_rank,
    is_held_out,
    translation_rows,
)

from dialbench import Dialogue
from dialbench.llm.runner import Runner
from dialbench.llm.specs import ModelConfig
from dialbench.metrics.translate import ModelTranslator, TranslationRequest

TRANSLATOR = "local:qwen2.5-0.5b"
TURNS = {"dbdc3": 11, "chitchat-dataset": 8}
"""The first turns of a dialogue that are translated: DBDC3's 11 hold its first five graded
chatbot turns with three turns of context each; a chat's 8 make seven next-turn pairs."""


def units(scratch: Path) -> Iterator[tuple[str, Dialogue]]:
    """(corpus, dialogue) in the order they are translated: the two corpora in turn."""
    dbdc = [d for d in dbdc_dialogues(dbdc_run(scratch), ["en"]) if not is_held_out(d.id)]
    chats = [d for d in chitchat_dialogues() if not is_held_out(d.id)]
    queues = [
        [("dbdc3", d) for d in sorted(dbdc, key=lambda d: hash_rank(d.id))],
        [("chitchat-dataset", d) for d in sorted(chats, key=lambda d: hash_rank(d.id))],
    ]
    for pair in zip(*queues, strict=False):
        yield from pair


def done() -> set[tuple[str, str]]:
    return {(row["dialogue"], row["language"]) for row in translation_rows()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=60.0, help="stop after this long")
    parser.add_argument("--dialogues", type=int, default=10_000, help="stop after this many")
    parser.add_argument("--threads", type=int, default=1, help="llama.cpp threads")
    parser.add_argument("--cache", type=Path, default=Path("runs/corpus-mt-cache"))
    args = parser.parse_args()
    deadline = time.monotonic() + 60 * args.minutes
    finished = done()
    count = translated = 0
    started = time.perf_counter()
    CORPUS_TRANSLATIONS.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch, Runner(args.cache, quiet=True) as runner:
        translator = ModelTranslator(runner, ModelConfig(spec=TRANSLATOR, n_threads=args.threads))
        for corpus, source in units(Path(scratch)):
            if count >= args.dialogues or time.monotonic() > deadline:
                break
            wanted = [lang for lang in MT_LANGUAGES if (source.id, lang) not in finished]
            if not wanted:
                continue
            turns = source.turns[: TURNS[corpus]]
            requests = [TranslationRequest(t.text, "en", lang) for lang in wanted for t in turns]
            outputs = translator.translate(requests)
            with CORPUS_TRANSLATIONS.open("a", encoding="utf-8") as out:
                for i, language in enumerate(wanted):
                    row = {
                        "dialogue": source.id,
                        "corpus": corpus,
                        "language": language,
                        "roles": [t.role for t in turns],
                        "source": [t.text for t in turns],
                        "turns": outputs[i * len(turns) : (i + 1) * len(turns)],
                    }
                    out.write(json.dumps(row, ensure_ascii=False) + "\n")
            count += 1
            translated += len(requests)
            seconds = time.perf_counter() - started
            print(
                f"{count} dialogues ({corpus}), {translated} utterances in {seconds:.0f} s "
                f"({translated / seconds:.2f}/s)",
                flush=True,
            )


if __name__ == "__main__":
    main()
