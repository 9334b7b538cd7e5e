"""`dialbench import` and `dialbench sample` on a large generated log, each as its own process.

Writes a multilingual file (en, zh, de, fr, pt, es, ja) of about `--turns` turns, shaped like a
production log: most conversations logged once, some logged twice (an identical repeat), and
some logged once per call, each call repeating the conversation so far (every exchange's
prefix, shortest first); one user turn in ten leaves an e-mail address, which production formats
redact on import. Then runs the real commands, process start to exit, and prints turns
per second, the peak resident memory of that process (its own rusage, from wait4), and the size
of the store. Run it at two sizes to see that memory does not grow with the file.
Usage: .venv/bin/python benchmarks/import_large.py [--turns 1000000] [--format jsonl]
       [--sample-size 2000] [--keep FOLDER]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

DIALBENCH = Path(sys.executable).with_name("dialbench")

# Per language: a user's question and a chatbot's answer, filled with a topic and a number.
PHRASES = {
    "en": ("Could you tell me more about {t}, point {n}?", "Sure: {t} matters because of {n}."),
    "zh": ("你能多讲讲{t}吗？第{n}点。", "当然：{t}很重要，原因是第{n}点。"),
    "de": ("Kannst du mir mehr über {t} sagen, Punkt {n}?", "Gern: {t} zählt wegen {n}."),
    "fr": ("Peux-tu m'en dire plus sur {t}, point {n} ?", "Bien sûr : {t} compte pour {n}."),
    "pt": ("Podes dizer-me mais sobre {t}, ponto {n}?", "Claro: {t} importa por causa de {n}."),
    "es": ("¿Me cuentas más sobre {t}, punto {n}?", "Claro: {t} importa por {n}."),
    "ja": ("{t}についてもっと教えてください。{n}番目です。", "はい、{t}は{n}の理由で大切です。"),
}
TOPICS = {
    "en": ("trains", "tax forms", "recipes", "refunds", "passwords", "weather", "invoices"),
    "zh": ("火车", "税表", "菜谱", "退款", "密码", "天气", "发票"),
    "de": ("Züge", "Steuerformulare", "Rezepte", "Erstattungen", "Passwörter", "Wetter"),
    "fr": ("les trains", "les impôts", "les recettes", "les remboursements", "la météo"),
    "pt": ("os comboios", "os impostos", "as receitas", "os reembolsos", "o tempo"),
    "es": ("los trenes", "los impuestos", "las recetas", "los reembolsos", "el tiempo"),
    "ja": ("電車", "税金の書類", "レシピ", "返金", "パスワード", "天気"),
}
REPEATED_SHARE = 0.05  # conversations logged twice, identically
PER_CALL_SHARE = 0.2  # conversations logged once per call: every prefix, then the whole


def conversation(rng: random.Random, number: int) -> dict[str, Any]:
    language = rng.choice(list(PHRASES))
    ask, answer = PHRASES[language]
    turns = []
    for exchange in range(rng.randint(1, 6)):
        topic = rng.choice(TOPICS[language])
        filler = " ".join(rng.choice(TOPICS[language]) for _ in range(rng.randint(0, 12)))
        n = f"{number}.{exchange}"
        contact = f" Mail: user{number}@example.com" if rng.random() < 0.1 else ""
        turns.append({"role": "user", "text": ask.format(t=topic, n=n) + contact})
        turns.append({"role": "assistant", "text": answer.format(t=topic, n=n) + " " + filler})
    about = {"conversation_id": f"c{number}"}
    return {"language": language, "source": "benchmark", "turns": turns, "metadata": about}


def logged(rng: random.Random, turns: int) -> Iterator[dict[str, Any]]:
    """Log entries of about `turns` turns in all."""
    written = number = 0
    while written < turns:
        whole = conversation(rng, number)
        number += 1
        draw = rng.random()
        if draw < PER_CALL_SHARE:
            entries = [
                {**whole, "turns": whole["turns"][:end]}
                for end in range(2, len(whole["turns"]) + 1, 2)
            ]
        elif draw < PER_CALL_SHARE + REPEATED_SHARE:
            entries = [whole, whole]
        else:
            entries = [whole]
        for entry in entries:
            written += len(entry["turns"])
            yield entry


def write_jsonl(entries: Iterator[dict[str, Any]], stream: TextIO) -> None:
    for entry in entries:
        stream.write(json.dumps(entry, ensure_ascii=False) + "\n")


def write_openai_log(entries: Iterator[dict[str, Any]], stream: TextIO) -> None:
    """Each entry as one logged chat-completions call: the history sent, the reply received.
    The language is not written: the reader tells it from the user's turns, as in production."""
    for number, entry in enumerate(entries):
        *sent, reply = [{"role": t["role"], "content": t["text"]} for t in entry["turns"]]
        call = {
            "request": {"model": "bot-1", "messages": sent, "metadata": entry["metadata"]},
            "response": {
                "id": f"chatcmpl-{number}",
                "model": "bot-1",
                "choices": [{"index": 0, "message": reply, "finish_reason": "stop"}],
            },
        }
        stream.write(json.dumps(call, ensure_ascii=False) + "\n")


# Format name -> (file name ending, writer of log entries in dialbench's record shape).
WRITERS: dict[str, tuple[str, Callable[[Iterator[dict[str, Any]], TextIO], None]]] = {
    "jsonl": (".jsonl", write_jsonl),
    "openai-log": (".jsonl", write_openai_log),
}


def measured(*args: str | Path) -> tuple[float, float, str]:
    """Seconds, peak resident MB and stdout of one dialbench command, process start to exit."""
    start = time.perf_counter()
    child = subprocess.Popen([str(DIALBENCH), *map(str, args)], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    output = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"dialbench {' '.join(map(str, args))} failed")
    return seconds, usage.ru_maxrss / 1024, output


def store_mb(run: Path) -> float:
    return sum(f.stat().st_size for f in run.iterdir() if f.is_file()) / 1e6


def main(turns: int, fmt: str, sample_size: int, folder: Path) -> None:
    suffix, write = WRITERS[fmt]
    source = folder / f"log{suffix}"
    with source.open("w", encoding="utf-8") as stream:
        write(logged(random.Random(0), turns), stream)
    print(f"{turns:,} turns of {fmt}: {source.stat().st_size / 1e6:.0f} MB")
    seconds, peak, _ = measured("--help")
    print(f"{'dialbench --help':<18} {seconds:6.1f} s {'':>16} peak {peak:6.0f} MB (the floor)")
    run, sample = folder / "run", folder / "sample"
    seconds, peak, output = measured(
        "import", source, "--run", run, "--format", fmt, "--dedupe", "--json", "-q"
    )
    report = json.loads(output)
    rate = f"{turns / seconds:,.0f} turns/s"
    print(f"{'import':<18} {seconds:6.1f} s {rate:>16} peak {peak:6.0f} MB", end="")
    print(f"  store {store_mb(run):.0f} MB")
    counts = ("read", "repeats", "prefixes", "added", "unchanged")
    print("  " + ", ".join(f"{key} {report[key]:,}" for key in counts))
    if report["redacted"] is not None:
        found = ", ".join(f"{kind} {n:,}" for kind, n in report["redacted"].items() if n)
        print(f"  personal data redacted: {found or 'none'}")
    seconds, peak, _ = measured(
        "sample", run, sample, "--size", sample_size, "--seed", 0, "--quiet"
    )
    picked = f"{sample_size:,} picked"
    print(f"{'sample':<18} {seconds:6.1f} s {picked:>16} peak {peak:6.0f} MB", end="")
    print(f"  store {store_mb(sample):.1f} MB")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=1_000_000)
    parser.add_argument("--format", choices=sorted(WRITERS), default="jsonl")
    parser.add_argument("--sample-size", type=int, default=2000)
    parser.add_argument("--keep", type=Path, help="write the file and runs here, and keep them")
    options = parser.parse_args()
    if options.keep is not None:
        options.keep.mkdir(parents=True, exist_ok=True)
        main(options.turns, options.format, options.sample_size, options.keep)
    else:
        with tempfile.TemporaryDirectory() as scratch:
            main(options.turns, options.format, options.sample_size, Path(scratch))
