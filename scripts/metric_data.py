"""The data the packaged metrics learn from and are chosen by, shared by the scripts that
translate it (`translate_corpora.py`) and train on it (`train_default_metric.py`).

- DBDC3, the whole release (../shared/data/dbdc3_breakdown_ja_en.zip, MIT licence): graded
  sensibleness, the mean of the 30 raters' breakdown labels per chatbot turn (O = 1, T = 0.5,
  X = 0), English and Japanese;
- `chitchat-dataset` 0.9.0 (MIT): 7,168 English chats between crowd workers;
- `chatterbot-corpus` 1.3.3 (BSD-3-Clause): short conversations in en zh de fr pt es ja;
- MuTual's test ChatSEEDs (../shared/data/mutual_test_chatseeds.xlsx): English dialogues of
  another domain, only ever scored.

Every split is by dialogue, by a hash of its id (seed 0), exactly as `metric train` holds out.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from dialbench import Dialogue, ImportOptions, RunStore, import_file
from dialbench.metrics.config import HoldoutConfig, TargetConfig
from dialbench.metrics.examples import Example, graded_examples, held_out, load_dialogues
from dialbench.schema import Turn

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
DBDC_ZIP = DATA / "dbdc3_breakdown_ja_en.zip"
MUTUAL = DATA / "mutual_test_chatseeds.xlsx"
CORPUS_TRANSLATIONS = ROOT / "scripts" / "data" / "corpus_mt.jsonl"
"""The translated training dialogues `translate_corpora.py` appends to, a dialogue and language
a line: committed, so training needs no translator."""
TARGET = TargetConfig(dimension="breakdown", values={"O": 1.0, "T": 0.5, "X": 0.0})
HOLDOUT = HoldoutConfig(fraction=0.2, seed=0)
MT_LANGUAGES = ("zh", "de", "fr", "pt", "es", "ja")
"""The languages English training dialogues are translated into: the project's six and the
DBDC3 one."""
CHATTERBOT = {
    "english": "en",
    "chinese": "zh",
    "german": "de",
    "french": "fr",
    "portuguese": "pt",
    "spanish": "es",
    "japanese": "ja",
}


def hash_rank(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def is_held_out(dialogue_id: str) -> bool:
    return held_out(dialogue_id, HOLDOUT.fraction, HOLDOUT.seed)


def split(examples: Sequence[Example]) -> tuple[list[Example], list[Example]]:
    train, held = [], []
    for example in examples:
        (held if is_held_out(example.dialogue_id) else train).append(example)
    return train, held


def dialogue(texts: Sequence[str], language: str, source: str) -> Dialogue:
    roles = ("user", "assistant")
    turns = [Turn(role=roles[i % 2], text=t) for i, t in enumerate(texts)]
    return Dialogue(language=language, source=source, turns=turns)


def dbdc_run(scratch: Path) -> Path:
    run = scratch / "dbdc3"
    with RunStore.open(run) as store:
        import_file(store, DBDC_ZIP, ImportOptions())
        import_file(store, DBDC_ZIP, ImportOptions(records="annotations"))
    return run


def dbdc_dialogues(run: Path, languages: Sequence[str] = ("en", "ja")) -> list[Dialogue]:
    with RunStore.open(run, create=False) as store:
        return load_dialogues([store], languages)


def dbdc_examples(run: Path) -> list[Example]:
    with RunStore.open(run, create=False) as store:
        dialogues = load_dialogues([store], ["en", "ja"])
        return graded_examples([store], dialogues, TARGET.dimension, TARGET.values)


def chitchat_dialogues() -> list[Dialogue]:
    """Every chat of chitchat-dataset, a sender's consecutive messages joined into one turn."""
    import chitchat_dataset

    dialogues = []
    for _, chat in sorted(chitchat_dataset.Dataset().items()):
        texts = [" ".join(m["text"] for m in turn).strip() for turn in chat["messages"]]
        texts = [t for t in texts if t]
        if len(texts) >= 2:
            dialogues.append(dialogue(texts, "en", "chitchat-dataset"))
    return dialogues


def chatterbot_dialogues() -> list[Dialogue]:
    """chatterbot-corpus's conversations in its seven languages."""
    import chatterbot_corpus.corpus

    folder = Path(chatterbot_corpus.corpus.DATA_DIRECTORY)
    dialogues = []
    for name, language in CHATTERBOT.items():
        for path in sorted((folder / name).glob("*.yml")):
            data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
            for conversation in data.get("conversations") or []:
                texts = [str(t).strip() for t in conversation if str(t).strip()]
                if len(texts) >= 2:
                    dialogues.append(dialogue(texts, language, "chatterbot-corpus"))
    return list({d.id: d for d in dialogues}.values())


def translation_rows(path: Path = CORPUS_TRANSLATIONS) -> list[dict[str, Any]]:
    """The committed translations, a source dialogue and language a row: its id (`dialogue`),
    `corpus`, `language`, `roles`, the English `source` turns and the translated `turns` (None
    where a translation failed)."""
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def translated_dialogue(row: dict[str, Any]) -> Dialogue | None:
    """A row as a dialogue in its language; None when a turn failed to translate."""
    if any(text is None for text in row["turns"]):
        return None
    turns = [Turn(role=r, text=t) for r, t in zip(row["roles"], row["turns"], strict=True)]
    return Dialogue(language=row["language"], source=row["corpus"], turns=turns)
