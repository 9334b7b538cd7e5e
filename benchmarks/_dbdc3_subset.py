"""A fixed subset of the full DBDC3 release for the benchmarks that judge it: evaluation
dialogues drawn per language with a fixed seed, spread over the language's chatbots, imported
with their 30 breakdown labels per chatbot turn."""

from __future__ import annotations

import random
import zipfile
from collections import defaultdict
from pathlib import Path

from dialbench import ImportOptions, RunStore, import_file
from dialbench.store import STORE_FILENAME

DBDC_ZIP = Path(__file__).resolve().parents[2] / "shared" / "data" / "dbdc3_breakdown_ja_en.zip"
SEED = 0


def subset(target: Path, per_language: int) -> None:
    """`per_language` evaluation dialogues of each language, as many from each chatbot as the
    split allows, drawn with a fixed seed; both releases' copies (the importer keeps the
    revised one)."""
    with zipfile.ZipFile(DBDC_ZIP) as source:
        names = sorted(n for n in source.namelist() if n.endswith(".log.json") and "/eval/" in n)
        chatbots: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
        for name in names:
            if "/dbdc3/" in name:  # language/eval/chatbot/file in the first release
                language, _, chatbot, file = name.split("/dbdc3/")[1].split("/")
                chatbots[language][chatbot].append(file)
        rng = random.Random(SEED)
        wanted = set()
        for language, files in sorted(chatbots.items()):
            bots = sorted(files)
            for i, bot in enumerate(bots):
                share = per_language // len(bots) + (i < per_language % len(bots))
                wanted |= {f"{language}/eval/{bot}/{f}" for f in rng.sample(files[bot], share)}
        with zipfile.ZipFile(target, "w") as out:
            for name in names:
                if name.split("/dbdc3_revised/")[-1].split("/dbdc3/")[-1] in wanted:
                    out.writestr(name, source.read(name))


def prepare(run: Path, per_language: int) -> None:
    if (run / STORE_FILENAME).exists():
        return
    run.mkdir(parents=True, exist_ok=True)
    data = run / "dbdc3_subset.zip"
    subset(data, per_language)
    with RunStore.open(run) as store:
        import_file(store, data)
        import_file(store, data, ImportOptions(records="annotations"))
