"""The LLM layer's parts on their own: specs, parsing, prices, packaged-model assembly, cache."""

from __future__ import annotations

import hashlib
import math
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import pytest

from dialbench.hashing import file_sha256
from dialbench.llm.base import Completion, Request, TokenLogprob
from dialbench.llm.cache import CacheEntry, CallCache, cache_key
from dialbench.llm.http_client import error_message, retry_after_seconds
from dialbench.llm.packaged import (
    PackagedModel,
    PackagedModelError,
    cache_dir,
    ensure_assembled,
    status,
)
from dialbench.llm.prices import PriceTable, PriceTableError
from dialbench.llm.specs import ModelSpecError, parse_spec
from dialbench.llm.structured import InvalidOutput, parse_json_output
from dialbench.llm.yesno import yes_no_from
from dialbench.schema import Usage


def test_specs() -> None:
    assert parse_spec("local:qwen2.5-0.5b").model == "qwen2.5-0.5b"
    assert parse_spec("local:/models/x.gguf").model == "/models/x.gguf"
    assert parse_spec("openai:gpt-4.1").backend == "openai"
    compat = parse_spec("openai-compat:http://127.0.0.1:8000/v1#my-model")
    assert (compat.backend, compat.base_url, compat.model) == (
        "openai-compat",
        "http://127.0.0.1:8000/v1",
        "my-model",
    )


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("gpt-4.1", "has no backend"),
        ("claude:sonnet", "unknown backend 'claude'"),
        ("openai-compat:http://127.0.0.1:8000/v1", "#<model name>"),
        ("openai-compat:127.0.0.1:8000#m", "#<model name>"),
    ],
)
def test_bad_specs_say_what_to_write(spec: str, message: str) -> None:
    with pytest.raises(ModelSpecError, match=message):
        parse_spec(spec)


def completion_with(top: dict[str, float]) -> Completion:
    return Completion(
        text="", top_logprobs=[TokenLogprob(token=t, logprob=math.log(p)) for t, p in top.items()]
    )


def test_yes_probability_renormalises_yes_against_no() -> None:
    result = yes_no_from(completion_with({" Yes": 0.6, "yes": 0.1, "No": 0.2, "I": 0.1}))
    assert result.status == "ok"
    assert result.p_yes == pytest.approx(0.7 / 0.9)
    chinese = yes_no_from(completion_with({"是": 0.3, "不是": 0.6}))
    assert chinese.p_yes == pytest.approx(1 / 3)


def test_yes_probability_is_unscored_without_an_answer() -> None:
    neither = yes_no_from(completion_with({"Maybe": 0.5, "I": 0.3}))
    assert (neither.status, neither.p_yes) == ("unscored", None)
    assert neither.error is not None
    assert "neither yes nor no" in neither.error
    no_logprobs = yes_no_from(Completion(text="Yes"))
    assert (no_logprobs.status, no_logprobs.p_yes) == ("unscored", None)


SCHEMA = {"type": "object", "properties": {"score": {"enum": [1, 2, 3]}}, "required": ["score"]}


def test_parse_json_output() -> None:
    assert parse_json_output('{"score": 2}', SCHEMA) == {"score": 2}
    assert parse_json_output('```json\n{"score": 3}\n```', SCHEMA) == {"score": 3}
    with pytest.raises(InvalidOutput, match="not valid JSON"):
        parse_json_output('{"score": 2', SCHEMA)
    with pytest.raises(InvalidOutput, match=r"at score: 4 is not one of \[1, 2, 3\]"):
        parse_json_output('{"score": 4}', SCHEMA)
    with pytest.raises(InvalidOutput, match="'score' is a required property"):
        parse_json_output("{}", SCHEMA)


def test_retry_after_forms() -> None:
    assert retry_after_seconds({"retry-after": "3"}) == 3.0
    assert retry_after_seconds({"retry-after-ms": "250", "retry-after": "3"}) == 0.25
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    assert 25 < (retry_after_seconds({"retry-after": later}) or 0) <= 30
    assert retry_after_seconds({"retry-after": "soon"}) is None
    assert retry_after_seconds({}) is None


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (b'{"error": {"message": "model not found", "type": "x"}}', "model not found"),
        (b'{"error": "rate limited"}', "rate limited"),
        (b'{"detail": "Not Found"}', "Not Found"),
        (b"<html>502 Bad Gateway</html>", "<html>502 Bad Gateway</html>"),
        (b"", "(empty body)"),
        (b"x" * 2000, "x" * 2000),  # cut by the runner, once redacted (test_error_redaction)
    ],
)
def test_error_message_takes_the_servers_words(body: bytes, said: str) -> None:
    assert error_message(body) == said


def test_price_table_extension(tmp_path: Path) -> None:
    usage = Usage(prompt_tokens=1_000_000, completion_tokens=500_000)
    prices = PriceTable.load()
    assert prices.cost("openai:gpt-4.1", usage) == pytest.approx(2.0 + 4.0)
    assert prices.cost("local:qwen2.5-0.5b", usage) == 0.0
    assert prices.cost("openai-compat:http://h/v1#m", usage) is None
    extra = tmp_path / "prices.json"
    extra.write_text('{"openai-compat:http://h/v1#m": [1, 1], "openai:gpt-4.1": [0, 0]}')
    extended = PriceTable.load(extra)
    assert extended.cost("openai-compat:http://h/v1#m", usage) == pytest.approx(1.5)
    assert extended.cost("openai:gpt-4.1", usage) == 0.0
    extra.write_text('{"m": "free"}')
    with pytest.raises(PriceTableError, match="not a price table"):
        PriceTable.load(extra)


def chunk_packages(root: Path, chunks: list[bytes]) -> PackagedModel:
    """Real importable chunk packages, laid out like the published ones."""
    modules = []
    for i, chunk in enumerate(chunks, start=1):
        module = f"fake_model_part{i}"
        (root / module / "data").mkdir(parents=True)
        (root / module / "__init__.py").write_text("")
        (root / module / "data" / f"part{i:02d}.bin").write_bytes(chunk)
        modules.append(module)
    whole = b"".join(chunks)
    return PackagedModel(
        name="fake",
        title="fake",
        filename="fake.gguf",
        size=len(whole),
        sha256=hashlib.sha256(whole).hexdigest(),
        modules=tuple(modules),
        parts=tuple(f"part{i:02d}.bin" for i in range(1, len(chunks) + 1)),
        pip_extra="fake",
    )


@pytest.fixture
def fake_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[PackagedModel]:
    monkeypatch.setenv("DIALBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    model = chunk_packages(tmp_path / "site", [b"GGUF" + b"a" * 1000, b"b" * 700, b"c" * 5])
    yield model
    for module in model.modules:
        sys.modules.pop(module, None)


def test_assembles_verifies_and_stamps(fake_model: PackagedModel) -> None:
    assert status(fake_model) == "not assembled"
    path = ensure_assembled(fake_model)
    assert path == cache_dir() / "fake.gguf"
    assert path.read_bytes().startswith(b"GGUF" + b"a" * 1000 + b"b")
    assert file_sha256(path) == fake_model.sha256
    assert status(fake_model) == "verified"
    assert sorted(p.name for p in path.parent.iterdir()) == ["fake.gguf", "fake.gguf.sha256"]


def test_refuses_chunks_that_do_not_match(fake_model: PackagedModel) -> None:
    wrong = fake_model.model_copy(update={"sha256": "0" * 64})
    with pytest.raises(PackagedModelError, match=f"expected {fake_model.size} bytes, sha256 0000"):
        ensure_assembled(wrong)
    assert not any(cache_dir().iterdir())  # no temporary file, no half-assembled model


def test_refuses_a_tampered_cached_file(fake_model: PackagedModel) -> None:
    path = ensure_assembled(fake_model)
    path.unlink()
    path.write_bytes(b"x" * fake_model.size)
    (path.parent / "fake.gguf.sha256").unlink()
    assert status(fake_model) == "assembled"
    with pytest.raises(PackagedModelError, match=f"expected {fake_model.sha256}, got"):
        ensure_assembled(fake_model)
    assert status(fake_model, rehash=True) == "sha256 mismatch"


def test_missing_chunk_package_names_the_extra(fake_model: PackagedModel) -> None:
    missing = fake_model.model_copy(update={"modules": ("no_such_chunk_module",)})
    with pytest.raises(PackagedModelError, match=r"pip install 'dialbench\[fake\]'"):
        ensure_assembled(missing)


def test_cache_serves_pending_and_committed_entries(tmp_path: Path) -> None:
    request = Request(kind="complete", prompt="hi")
    key = cache_key("local:x", request)
    assert key != cache_key("local:y", request)
    assert key != cache_key("local:x", request.model_copy(update={"sample": 1}))
    with CallCache(tmp_path) as cache:
        assert cache.get(key) is None
        cache.put(
            CacheEntry(key=key, spec="local:x", request=request, completion=Completion(text="a"))
        )
        assert cache.get(key) == Completion(text="a")
        assert len(cache) == 1
    with CallCache(tmp_path) as reopened:
        assert reopened.get(key) == Completion(text="a")
