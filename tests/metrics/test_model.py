"""Training on a small store with a stand-in encoder: strategies, the versioned model directory,
its verification on load, and scoring into Judgments."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from dialbench import examples
from dialbench.errors import DialbenchError
from dialbench.metrics.config import DataConfig, MetricTrainConfig, TargetConfig
from dialbench.metrics.encoders import Encoder
from dialbench.metrics.saved_metric import load_model
from dialbench.metrics.score import MANY_TURNS, encoder_processes, score_run
from dialbench.metrics.train import train_metric
from dialbench.schema import Judgment
from dialbench.store import RunStore
from tests.metrics.helpers import DIM, annotated_run, fake_encoder


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    return annotated_run(tmp_path / "run")


def _config(run_dir: Path, **changes: object) -> MetricTrainConfig:
    base = MetricTrainConfig(
        name="sens",
        dimension="sensibleness",
        data=DataConfig(runs=[run_dir]),
        target=TargetConfig(dimension="breakdown", values={"O": 1.0, "T": 0.5, "X": 0.0}),
        head="ridge",
        alpha=1.0,
        holdout={"fraction": 0.3, "seed": 0},
    )
    return base.model_copy(update=changes)


def test_train_save_load_and_score(run_dir: Path, tmp_path: Path) -> None:
    info = train_metric(_config(run_dir), tmp_path / "m1", fake_encoder())
    assert info.judge_model == f"metric:sens@{info.version}"
    assert {d.language for d in info.dev} == {"en", "de"}
    assert all(d.pearson is not None and d.pearson > 0.9 for d in info.dev)
    again = train_metric(_config(run_dir), tmp_path / "m2", fake_encoder())
    assert again.version == info.version, "the same config and data give the same version"
    other = train_metric(_config(run_dir, alpha=5.0), tmp_path / "m3", fake_encoder())
    assert other.version != info.version

    model = load_model(tmp_path / "m1")
    with RunStore.open(run_dir) as store, store.invocation("score") as run:
        summary = score_run(model, store, run, encoder=fake_encoder(), heldout_only=True)
        judgments = list(store.records(Judgment, protocol="metric:sens"))
    assert summary.judgments == len(judgments) == 2 * len(info.heldout_dialogues)
    for judgment in judgments:
        assert judgment.judge_model == info.judge_model
        assert judgment.target.turn_index in (1, 3)
        assert 0.0 <= float(judgment.result["sensibleness"]) <= 1.0  # type: ignore[arg-type,index]


def test_strategies(run_dir: Path, tmp_path: Path) -> None:
    per_language = train_metric(_config(run_dir, strategy="LANG"), tmp_path / "l", fake_encoder())
    assert set(per_language.heads) == {"en", "de"}
    english = train_metric(_config(run_dir, strategy="EN"), tmp_path / "e", fake_encoder())
    assert set(english.heads) == {"all"}
    assert english.n_train["de"] > 0
    with pytest.raises(DialbenchError, match="English"):
        train_metric(
            _config(run_dir, strategy="EN", data=DataConfig(runs=[run_dir], languages=["de"])),
            tmp_path / "x",
            fake_encoder(),
        )


def test_a_changed_model_directory_is_refused(run_dir: Path, tmp_path: Path) -> None:
    train_metric(_config(run_dir), tmp_path / "m", fake_encoder())
    head = tmp_path / "m" / "heads" / "all.npz"
    np.savez(head, w=np.zeros(4 * DIM + 5, dtype=np.float32), b=np.array([0.5]))
    with pytest.raises(DialbenchError, match="changed since training"):
        load_model(tmp_path / "m")
    meta = tmp_path / "m" / "metric.json"
    meta.write_text(meta.read_text().replace('"history": 3', '"history": 2'))
    with pytest.raises(DialbenchError, match="does not match its version"):
        load_model(tmp_path / "m")


def test_scoring_refuses_another_encoder(run_dir: Path, tmp_path: Path) -> None:
    train_metric(_config(run_dir), tmp_path / "m", fake_encoder())
    model = load_model(tmp_path / "m")
    other = Encoder("fake", "2", DIM, fake_encoder()._encode)
    with (
        RunStore.open(run_dir) as store,
        store.invocation("score") as run,
        pytest.raises(DialbenchError, match="trained on encoder fake 1"),
    ):
        score_run(model, store, run, encoder=other)


def test_nsp_and_vsp_from_a_dialogue_file(tmp_path: Path) -> None:
    """Unlabelled dialogues from any importable file: self-supervised targets, every language."""
    jsonl = examples.bundled()["multilingual_dialogues"]
    for objective, dimension in (("nsp", "next_turn"), ("vsp", "well_formed")):
        config = MetricTrainConfig(
            name=objective,
            objective=objective,
            data=DataConfig(files=[jsonl]),
            alpha=1.0,
            holdout={"fraction": 0.0, "seed": 0},
        )
        info = train_metric(config, tmp_path / objective, fake_encoder())
        assert info.dimension == dimension
        assert set(info.n_train) == {"en", "de", "es", "fr", "ja", "pt", "zh"}
        assert info.dev == []
        assert info.clip == (0.0, 1.0)


def test_a_graded_metric_needs_runs() -> None:
    with pytest.raises(ValueError, match="reads human labels from runs"):
        MetricTrainConfig.model_validate(
            {
                "name": "x",
                "data": {"files": ["a.jsonl"]},
                "target": {"dimension": "breakdown", "values": {"O": 1, "X": 0}},
            }
        )


def test_mlp_head_is_plain_arrays_that_predict_as_the_fitted_network(
    run_dir: Path, tmp_path: Path
) -> None:
    from sklearn.decomposition import PCA
    from sklearn.neural_network import MLPRegressor

    from dialbench.metrics.saved_metric import MLPHead
    from dialbench.metrics.train import fit_mlp

    rng = np.random.default_rng(0)
    features = rng.normal(size=(200, 12)) * rng.uniform(0.1, 10, size=12)
    targets = features[:, 0] / 10 - np.tanh(features[:, 1])
    head = fit_mlp(features, targets, alpha=1.0, seed=0)
    standard = (features - features.mean(axis=0)) / features.std(axis=0)
    pca = PCA(12, random_state=0).fit(standard)
    mlp = MLPRegressor(hidden_layer_sizes=(64,), alpha=1.0, max_iter=300, early_stopping=True,
                       random_state=0).fit(pca.transform(standard), targets)  # fmt: skip
    expected = mlp.predict(pca.transform(standard))
    assert np.allclose(head.predict(features), expected, atol=1e-3)

    info = train_metric(_config(run_dir, head="mlp"), tmp_path / "mlp", fake_encoder())
    model = load_model(tmp_path / "mlp")
    assert isinstance(model.heads["all"], MLPHead)
    assert info.version != train_metric(_config(run_dir), tmp_path / "r", fake_encoder()).version
    with RunStore.open(run_dir) as store, store.invocation("score") as run:
        summary = score_run(model, store, run, encoder=fake_encoder(), heldout_only=True)
    assert summary.judgments == 2 * len(info.heldout_dialogues)


def test_blended_heads_predict_the_weighted_sum_of_theirs() -> None:
    from dialbench.metrics.saved_metric import blend
    from dialbench.metrics.train import fit_mlp

    rng = np.random.default_rng(1)
    features = rng.normal(size=(300, 12)) * rng.uniform(0.1, 10, size=12)
    first = fit_mlp(features, np.tanh(features[:, 0]), alpha=1.0, seed=0)
    second = fit_mlp(features, features[:, 1] ** 2, alpha=1.0, seed=0)
    blended = blend([first, second], [0.7, 0.3])
    expected = 0.7 * first.predict(features) + 0.3 * second.predict(features)
    assert np.allclose(blended.predict(features), expected, atol=1e-3)
    assert blended.n_features == 12


def test_a_long_scoring_run_gets_an_encoder_process_per_core() -> None:
    assert encoder_processes(MANY_TURNS - 1) == 1
    assert encoder_processes(MANY_TURNS) == len(os.sched_getaffinity(0))
