"""The fine-tuning path on a tiny randomly initialised XLM-R the test builds itself (no weights
can be downloaded here): the real `from_pretrained` loading, training, saving, scoring."""

from __future__ import annotations

import math
import time
from pathlib import Path

import pytest

from dialbench.errors import DialbenchError
from dialbench.llm.hub import hub_model
from dialbench.metrics.config import (
    AugmentConfig,
    DataConfig,
    FinetuneConfig,
    MetricTrainConfig,
    TargetConfig,
)
from dialbench.metrics.saved_metric import load_model
from dialbench.metrics.score import score_run
from dialbench.metrics.train import train_metric
from dialbench.schema import Judgment
from dialbench.store import RunStore
from tests.conftest import RunCli
from tests.metrics.helpers import ScriptedTranslator, annotated_run

pytest.importorskip("torch")
pytest.importorskip("transformers")


def tiny_xlmr(folder: Path) -> Path:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast, XLMRobertaConfig, XLMRobertaModel

    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    tokenizer = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    corpus = [f"hi {n} hello {n} how {n} fine {n} sorry" for n in range(20)]
    tokenizer.train_from_iterator(corpus, trainers.WordLevelTrainer(special_tokens=specials))
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        bos_token="<s>",
        eos_token="</s>",
        cls_token="<s>",
        sep_token="</s>",
        pad_token="<pad>",
        unk_token="<unk>",
        mask_token="<mask>",
    )
    fast.save_pretrained(folder)
    config = XLMRobertaConfig(
        vocab_size=len(fast),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=80,
        pad_token_id=fast.pad_token_id,
    )
    XLMRobertaModel(config).save_pretrained(folder)
    return folder


def test_fine_tune_save_load_score(tmp_path: Path) -> None:
    run = annotated_run(tmp_path / "run")
    config = MetricTrainConfig(
        name="sens-ft",
        dimension="sensibleness",
        data=DataConfig(runs=[run]),
        target=TargetConfig(dimension="breakdown", values={"O": 1.0, "X": 0.0}),
        finetune=FinetuneConfig(
            model=str(tiny_xlmr(tmp_path / "base")),
            epochs=2,
            learning_rate=1e-3,
            batch_size=8,
            max_length=48,
            hidden=8,
        ),
        holdout={"fraction": 0.3, "seed": 0},
    )
    info = train_metric(config, tmp_path / "model")
    assert info.encoder.name == "hf"
    assert "hf/head.safetensors" in info.heads
    assert {d.language for d in info.dev} == {"en", "de"}
    model = load_model(tmp_path / "model")
    with RunStore.open(run) as store, store.invocation("score") as record:
        summary = score_run(model, store, record, heldout_only=True)
        judgments = list(store.records(Judgment, protocol="metric:sens-ft"))
    assert summary.judgments == len(judgments) == 2 * len(info.heldout_dialogues)
    for judgment in judgments:
        assert judgment.result is not None
        assert 0.0 <= float(str(judgment.result["sensibleness"])) <= 1.0
    (tmp_path / "model" / "hf" / "head.safetensors").write_bytes(b"changed")
    with pytest.raises(Exception, match="changed since training"):
        load_model(tmp_path / "model")


def test_fine_tune_on_translated_and_qe_filtered_data(tmp_path: Path) -> None:
    """The fine-tuned path trains on the same data as the frozen one: the training dialogues
    plus the translations the QE kept (top k% per language), never the held-out ones."""
    run = annotated_run(tmp_path / "run")
    config = MetricTrainConfig(
        name="sens-ft-mt",
        dimension="sensibleness",
        data=DataConfig(runs=[run], languages=["en"]),
        target=TargetConfig(dimension="breakdown", values={"O": 1.0, "X": 0.0}),
        finetune=FinetuneConfig(
            model=str(tiny_xlmr(tmp_path / "base")), epochs=1, batch_size=8, max_length=48, hidden=8
        ),
        augment=AugmentConfig(
            translator="local:qwen2.5-0.5b",
            languages=["de", "zh"],
            qe="round_trip_chrf",
            keep_percent=50,
        ),
        holdout={"fraction": 0.3, "seed": 0},
    )
    translator = ScriptedTranslator()
    info = train_metric(config, tmp_path / "model", translator=translator)
    english = info.n_train["en"]
    assert info.n_train["de"] == info.n_train["zh"] == math.ceil(english * 0.5)
    assert {d.language for d in info.dev} == {"en"}, "translations never join the dev set"
    assert ("de", "en") in translator.pairs, "the QE's round trip"
    assert load_model(tmp_path / "model").fine_tuned


def tiny_seq2seq(folder: Path) -> Path:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import BartConfig, BartForConditionalGeneration, PreTrainedTokenizerFast

    specials = ["<s>", "<pad>", "</s>", "<unk>"]
    tokenizer = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    corpus = ["en_XX de_DE good morning how are you see you tomorrow guten morgen"]
    tokenizer.train_from_iterator(corpus, trainers.WordLevelTrainer(special_tokens=specials))
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        bos_token="<s>",
        eos_token="</s>",
        pad_token="<pad>",
        unk_token="<unk>",
    )
    fast.save_pretrained(folder)
    config = BartConfig(
        vocab_size=len(fast),
        d_model=16,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_ffn_dim=32,
        decoder_ffn_dim=32,
        max_position_embeddings=300,
        pad_token_id=fast.pad_token_id,
        bos_token_id=fast.bos_token_id,
        eos_token_id=fast.eos_token_id,
        decoder_start_token_id=fast.eos_token_id,
    )
    BartForConditionalGeneration(config).save_pretrained(folder)
    return folder


def test_an_hf_translator_is_a_backend_that_forces_the_target_code_and_caches(
    tmp_path: Path,
) -> None:
    from dialbench.llm.runner import Runner
    from dialbench.metrics.translate import ModelTranslator, TranslationRequest

    spec = "hf:" + str(tiny_seq2seq(tmp_path / "mt"))
    texts = ["good morning", "how are you", "see you tomorrow"]
    requests = [TranslationRequest(text, "en", "de") for text in texts]
    codes = {"en": "en_XX", "de": "de_DE"}
    with Runner(tmp_path / "run", quiet=True) as runner:
        plain = ModelTranslator(runner, spec).translate(requests)
        assert len(plain) == 3
        coded = ModelTranslator(runner, spec, codes).translate(requests)
        assert all(t is not None and t.startswith("de_DE") for t in coded), coded
        mixed = [
            TranslationRequest(text, *pair)
            for text in texts
            for pair in (("en", "de"), ("de", "en"))
        ]
        both = ModelTranslator(runner, spec, codes).translate(mixed)
        [line] = runner.usage()
    with Runner(tmp_path / "run", quiet=True) as runner:
        assert ModelTranslator(runner, spec, codes).translate(mixed) == both
        [again] = runner.usage()
    assert (line.calls, again.calls, again.cached_calls) == (9, 0, 6)  # en→de asked once
    forced = [str(t).split()[0] for t in both]
    assert forced == [r.target + ("_DE" if r.target == "de" else "_XX") for r in mixed], both


FINETUNE_CONFIG = """\
name: sens-ft
data: {runs: [run]}
target: {dimension: breakdown, values: {O: 1.0, X: 0.0}}
holdout: {fraction: 0.3, seed: 0}
finetune: {model: xlm-roberta-large, epochs: 1, batch_size: 8, max_length: 48, hidden: 8}
"""


@pytest.mark.parametrize(
    ("hub", "expected"),
    [
        ({"HF_ENDPOINT": "http://127.0.0.1:9"}, "http://127.0.0.1:9 cannot be reached"),
        ({"HF_HUB_OFFLINE": "1"}, "and HF_HUB_OFFLINE is set"),
    ],
)
def test_an_encoder_this_machine_cannot_get_is_one_line_before_any_work(
    cli: RunCli,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    hub: dict[str, str],
    expected: str,
) -> None:
    """Without the hub, `from_pretrained` retried for a minute and ended in two tracebacks."""
    annotated_run(tmp_path / "run")
    (tmp_path / "metric.yaml").write_text(FINETUNE_CONFIG)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))  # an empty cache
    for variable, value in hub.items():
        monkeypatch.setenv(variable, value)
    started = time.perf_counter()
    done = cli("metric", "train", "metric.yaml", "-o", "model", ok=False)
    assert time.perf_counter() - started < 60
    assert done.returncode == 1
    assert done.stderr.startswith(
        "error: finetune.model: 'xlm-roberta-large' is no folder here and not in the Hugging "
        "Face cache"
    )
    assert expected in done.stderr
    assert "hf download xlm-roberta-large" in done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert not (tmp_path / "model").exists()


def test_an_encoder_in_the_hub_cache_trains_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from huggingface_hub import constants

    cache = tmp_path / "hub"
    tiny_xlmr(cache / "models--dialbench--tiny-xlmr" / "snapshots" / "0123abcd")
    (cache / "models--dialbench--tiny-xlmr" / "refs").mkdir()
    (cache / "models--dialbench--tiny-xlmr" / "refs" / "main").write_text("0123abcd")
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    config = MetricTrainConfig(
        name="sens-ft",
        data=DataConfig(runs=[annotated_run(tmp_path / "run")]),
        target=TargetConfig(dimension="breakdown", values={"O": 1.0, "X": 0.0}),
        finetune=FinetuneConfig(model="dialbench/tiny-xlmr", epochs=1, max_length=48, hidden=8),
        holdout={"fraction": 0.3, "seed": 0},
    )
    info = train_metric(config, tmp_path / "model")
    assert info.config["finetune"]["model"] == "dialbench/tiny-xlmr"  # type: ignore[index]
    assert "hf/head.safetensors" in info.heads


def test_a_folder_that_is_not_there_is_named_not_looked_up() -> None:
    with pytest.raises(DialbenchError, match=r"'\./models/xlmr' is no folder here, nor a hub id"):
        hub_model("./models/xlmr", "finetune.model")
