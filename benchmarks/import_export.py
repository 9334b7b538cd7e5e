"""Throughput of the data path: validate, store, re-import (idempotent) and export.

Prints dialogues per second for each stage on N generated multilingual dialogues of 8 turns.
Usage: .venv/bin/python benchmarks/import_export.py [N]
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from dialbench.io.exporter import export_records
from dialbench.io.importer import ImportOptions, check_file, import_file
from dialbench.store import RunStore

UTTERANCES = {
    "en": "Could you recommend a good book for a long train journey?",
    "zh": "你能推荐一本适合长途火车旅行的好书吗？",
    "de": "Kannst du mir ein gutes Buch für eine lange Zugfahrt empfehlen?",
    "fr": "Peux-tu me conseiller un bon livre pour un long voyage en train ?",
    "pt": "Podes recomendar-me um bom livro para uma longa viagem de comboio?",
    "es": "¿Me recomiendas un buen libro para un viaje largo en tren?",
}


def write_input(path: Path, count: int) -> None:
    languages = list(UTTERANCES)
    with path.open("w", encoding="utf-8") as stream:
        for i in range(count):
            language = languages[i % len(languages)]
            turns = [
                {"role": ("user", "assistant")[k % 2], "text": f"{UTTERANCES[language]} #{i}.{k}"}
                for k in range(8)
            ]
            record = {"language": language, "source": "benchmark", "turns": turns}
            stream.write(json.dumps(record, ensure_ascii=False) + "\n")


def timed(label: str, count: int, action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    seconds = time.perf_counter() - start
    print(f"{label:<34} {seconds:7.2f} s  {count / seconds:10,.0f} dialogues/s")
    return seconds


def main(count: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        source = root / "input.jsonl"
        write_input(source, count)
        print(f"{count:,} dialogues x 8 turns, {source.stat().st_size / 1e6:.1f} MB of JSONL")
        timed("validate only", count, lambda: check_file(source, ImportOptions()))
        with RunStore.open(root / "run") as store:
            first = timed("import (validate + store)", count, lambda: import_file(store, source))
            again = timed(
                "re-import (all already present)", count, lambda: import_file(store, source)
            )
            for fmt in ("jsonl", "parquet", "hf"):
                out = root / f"out.{fmt}"
                timed(
                    f"export {fmt}", count, lambda out=out, fmt=fmt: export_records(store, out, fmt)
                )
        print(f"re-import / first import time: {again / first:.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000)
