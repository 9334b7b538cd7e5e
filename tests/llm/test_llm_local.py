"""The real packaged 0.5B model: in-process through llama.cpp, and served by llama_cpp.server."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from dialbench.llm.backends.local import LocalAPI
from dialbench.llm.base import GenerationParams, Message, Request
from dialbench.llm.packaged import PACKAGED_MODELS, ensure_assembled
from dialbench.llm.role_model import Model
from dialbench.llm.runner import Runner
from dialbench.llm.specs import ModelConfig

pytestmark = pytest.mark.slow
LOCAL = "local:qwen2.5-0.5b"
RATING_SCHEMA = {
    "type": "object",
    "properties": {"score": {"enum": [1, 2, 3, 4, 5]}, "english": {"enum": ["yes", "no"]}},
    "required": ["score", "english"],
}
RATING_QUESTION = (
    "Rate how polite this reply is, from 1 (rude) to 5 (very polite), and say whether it is "
    "in English: 'Thank you so much for your help!'"
)
TRANSCRIPT = (
    "USER: Hi! How was your weekend?\nCHATBOT: It was great, I went hiking. How about yours?\nUSER:"
)
SPEAKER_STOPS = GenerationParams(max_tokens=40, stop=("\nCHATBOT:", "\nUSER:"))
FACT_CHECKER = {"role": "system", "content": "You are a careful fact checker. Answer yes or no."}


def ask(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


@pytest.fixture(scope="module")
def local() -> Model:
    return Runner(quiet=True).model(LOCAL, role="judge")


def test_chat_in_chinese(local: Model) -> None:
    reply = local.chat_sync(
        ask("中国的首都是哪里？请用一句话回答。"), GenerationParams(max_tokens=40)
    )
    assert "北京" in reply.text
    assert reply.finish_reason == "stop"
    assert reply.usage.prompt_tokens > 10
    assert 0 < reply.usage.completion_tokens <= 40
    assert reply.usage.cost_usd == 0.0
    assert reply.latency_s > 0


def test_transcript_completion_stays_in_role_and_stops(local: Model) -> None:
    reply = local.complete_sync(TRANSCRIPT, SPEAKER_STOPS)
    assert reply.finish_reason == "stop"
    assert reply.text.strip()
    assert "CHATBOT:" not in reply.text
    assert "USER:" not in reply.text


def test_json_schema_with_enum(local: Model) -> None:
    result = local.structured_sync(ask(RATING_QUESTION), RATING_SCHEMA)
    assert result.status == "ok"
    assert isinstance(result.value, dict)
    assert result.value["score"] in (4, 5)
    assert result.value["english"] == "yes"
    assert len(result.raw_outputs) == 1  # the grammar made the first answer valid


def test_yes_probability_ranks_true_above_false(local: Model) -> None:
    def p_yes(question: str) -> float:
        result = local.yes_probability_sync([FACT_CHECKER, {"role": "user", "content": question}])
        assert result.status == "ok"
        assert result.p_yes is not None
        return result.p_yes

    assert p_yes("北京是中国的首都吗？") > p_yes("月亮是用奶酪做的吗？") + 0.15
    assert p_yes("Is Paris the capital of France?") > p_yes("Is Paris the capital of Japan?")


def test_chat_log_probabilities_are_llama_cpps_own() -> None:
    """Read from the raw logits as each token is sampled (no `logits_all`), every generated
    token and its alternatives match what llama.cpp computes with every position kept."""
    api = LocalAPI(ModelConfig(spec=LOCAL))
    request = Request(
        kind="chat",
        messages=(Message(role="user", content=RATING_QUESTION),),
        params=GenerationParams(max_tokens=16),
        json_schema=RATING_SCHEMA,
        top_logprobs=5,
    )
    ours = asyncio.run(api.generate(request))
    theirs = api.context(logits_all=True).llama.create_chat_completion(
        messages=[{"role": "user", "content": RATING_QUESTION}],
        response_format={"type": "json_object", "schema": RATING_SCHEMA},
        max_tokens=16,
        temperature=0.0,
        seed=0,
        logprobs=True,
        top_logprobs=5,
    )
    expected = theirs["choices"][0]["logprobs"]["content"]  # type: ignore[index]
    assert ours.text == theirs["choices"][0]["message"]["content"]  # type: ignore[index]
    assert [t.token for t in ours.tokens] == [t["token"] for t in expected]
    # llama.cpp computes a batch of positions with other kernels than one position at a time,
    # and a context that kept an earlier prompt evaluates only the rest: log-probabilities
    # differ by a few percent, so near-ties among unlikely alternatives may swap places.
    close = {"rel": 0.05, "abs": 0.05}
    for token, reference in zip(ours.tokens, expected, strict=True):
        assert token.logprob == pytest.approx(reference["logprob"], **close)
        options = {t["token"]: t["logprob"] for t in reference["top_logprobs"]}
        assert token.top[0].token == reference["top_logprobs"][0]["token"]
        shared = [t for t in token.top if t.token in options]
        assert len(shared) >= 3
        assert [t.logprob for t in shared] == pytest.approx(
            [options[t.token] for t in shared], **close
        )


def test_rerun_from_cache_loads_no_model_call(tmp_path: Path) -> None:
    def run() -> tuple[str, int, int]:
        with Runner(tmp_path, quiet=True) as runner:
            reply = runner.model(LOCAL).complete_sync(TRANSCRIPT, SPEAKER_STOPS)
            [line] = runner.usage()
            return reply.text, line.calls, line.cached_calls

    text, calls, cached = run()
    assert (calls, cached) == (1, 0)
    assert run() == (text, 0, 1)


def test_any_gguf_path_is_a_local_model(local: Model) -> None:
    path = ensure_assembled(PACKAGED_MODELS["qwen2.5-0.5b"])
    by_path = Runner(quiet=True).model(f"local:{path}")
    assert by_path.spec == f"local:{path}"
    reply = by_path.complete_sync(TRANSCRIPT, SPEAKER_STOPS)
    assert reply.text == local.complete_sync(TRANSCRIPT, SPEAKER_STOPS).text


def test_thread_count_is_configurable() -> None:
    model = Runner(quiet=True).model(ModelConfig(spec=LOCAL, n_threads=1, n_ctx=512))
    reply = model.complete_sync("1, 2, 3,", GenerationParams(max_tokens=4))
    assert reply.usage.completion_tokens > 0
    assert isinstance(model.api, LocalAPI)
    assert model.api.context().llama.n_threads == 1


LOAD = """
import sys
from dialbench.llm.backends.local import LocalAPI
from dialbench.llm.specs import ModelConfig
LocalAPI(ModelConfig(spec=sys.argv[1], n_ctx=512)).context()
"""


def load_in_a_process(spec: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", LOAD, spec]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def test_a_model_load_shows_llama_cpp_errors_and_nothing_else(tmp_path: Path) -> None:
    """llama.cpp warned on every load that a token "was not control-type; this is probably a
    bug in the model", while the reason a file failed to load went unprinted."""
    loaded = load_in_a_process(LOCAL)
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stderr == ""
    (tmp_path / "broken.gguf").write_bytes(b"not a model")
    broken = load_in_a_process(f"local:{tmp_path / 'broken.gguf'}")
    assert broken.returncode != 0
    assert "llama_model_load: error loading model" in broken.stderr


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def llama_server() -> Iterator[str]:
    """llama_cpp.server serving the packaged model on 127.0.0.1; yields its base URL."""
    path = ensure_assembled(PACKAGED_MODELS["qwen2.5-0.5b"])
    port = free_port()
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(path), "--host"]
    command += ["127.0.0.1", "--port", str(port), "--n_ctx", "2048", "--n_threads", "-1"]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base_url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 120
    try:
        while True:
            try:
                urllib.request.urlopen(f"{base_url}/models", timeout=1).close()
                break
            except OSError:
                assert server.poll() is None, "llama_cpp.server exited"
                assert time.monotonic() < deadline, "llama_cpp.server did not start"
                time.sleep(0.5)
        yield base_url
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_openai_compat_against_llama_cpp_server(llama_server: str) -> None:
    # No structured_output: that llama_cpp.server refuses json_schema is found on the way.
    config = ModelConfig(spec=f"openai-compat:{llama_server}#qwen2.5-0.5b", timeout_s=120)
    model = Runner(quiet=True).model(config)
    reply = model.chat_sync(ask("What is 2 + 2? Answer with a number."))
    assert "4" in reply.text
    assert reply.usage.completion_tokens > 0
    transcript = model.complete_sync(TRANSCRIPT, SPEAKER_STOPS)
    assert transcript.text.strip()
    assert "CHATBOT:" not in transcript.text
    rating = model.structured_sync(ask(RATING_QUESTION), RATING_SCHEMA)
    assert model.api.structured_mode == "json_object"
    assert rating.status == "ok"
    assert isinstance(rating.value, dict)
    assert rating.value["english"] == "yes"
    judged = model.yes_probability_sync([FACT_CHECKER, *ask("北京是中国的首都吗？")])
    assert judged.status == "ok"
    assert judged.p_yes is not None
    assert judged.p_yes > 0.5
