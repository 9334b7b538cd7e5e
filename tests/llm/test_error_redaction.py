"""A server that echoes its request into its error (the header it refused, the URL with its
`?api_key=`) gets no secret stored or printed: with each backend, the error a call fails with is
redacted before it leaves the runner."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest
from leaky_server import LeakyServer, leaky_server

from dialbench import examples
from dialbench.llm.redaction import ERROR_TEXT_LIMIT, REDACTED, header_secrets, redacted
from dialbench.llm.runner import CallFailed, Runner
from dialbench.llm.specs import ModelConfig
from dialbench.schema import Dialogue
from dialbench.simulate import simulate
from dialbench.store import RunStore
from tests.conftest import RunCli
from tests.own_bots.conftest import config as simulation
from tests.own_bots.conftest import user_script

HEADER_KEY = "hdr-s3cret-0123"
URL_KEY = "url-s3cret-4567"
SECRETS = (HEADER_KEY, URL_KEY)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[LeakyServer]:
    """A server that refuses every request with a 401 repeating its headers and URL."""
    monkeypatch.setenv("LEAKY_KEY", HEADER_KEY)
    with leaky_server() as running:
        running.echo_status = 401
        yield running


def shown(text: str) -> str:
    assert REDACTED in text, text
    assert not [secret for secret in SECRETS if secret in text], text
    return text


def test_secrets_urls_and_bearer_tokens_are_redacted() -> None:
    text = (
        "HTTP 401: key s3cr3t-value refused at http://me:pw@h:1/v1?x=1&api_key=abc&Sig=zz "
        "(Authorization: Bearer tok-999, X-Short: ab)"
    )
    assert redacted(text, {"s3cr3t-value", "ab"}) == (
        "HTTP 401: key [redacted] refused at http://[redacted]@h:1/v1?x=1&api_key=[redacted]&"
        "Sig=[redacted] (Authorization: Bearer [redacted], X-Short: ab)"
    )
    assert header_secrets({"Authorization": "Bearer tok-999"}) == {"Bearer tok-999", "tok-999"}


def http_bot(server: LeakyServer) -> dict[str, Any]:
    return {
        "spec": "http:leaky",
        "http": {
            "url": server.url(f"/chat?api_key={URL_KEY}"),
            "headers": {"X-Api-Key": "${LEAKY_KEY}"},
            "body": {"message": "{{last_user_message}}"},
            "reply_path": "reply.text",
        },
    }


PYTHON_BOT = f"""
def reply(request):
    raise RuntimeError("cannot reach http://svc/x?access_token={URL_KEY} (Bearer {HEADER_KEY})")
"""


def python_bot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    (tmp_path / "leaky_bot.py").write_text(PYTHON_BOT, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.delitem(sys.modules, "leaky_bot", raising=False)
    return {"spec": "python:leaky_bot:reply", "max_attempts": 1}


def model(backend: str, server: LeakyServer) -> dict[str, Any]:
    """The backend's model, its key in LEAKY_KEY and another in its URL's query."""
    keyed = {"api_key_env": "LEAKY_KEY"}
    v1 = server.url(f"/v1?api_key={URL_KEY}")
    if backend == "http-bot":
        return http_bot(server)
    if backend == "openai-compat":
        return {"spec": f"openai-compat:{v1}#m"} | keyed
    if backend == "pool":
        return {"spec": f"pool:{v1},{server.url('/v2')}#m"} | keyed
    return {"spec": "litellm:openai/m", "base_url": v1} | keyed


@pytest.mark.parametrize("backend", ["http-bot", "openai-compat", "pool", "litellm", "python-bot"])
def test_each_backend_fails_with_its_secrets_redacted(
    server: LeakyServer,
    backend: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    if backend == "litellm" and find_spec("litellm") is None:
        pytest.skip("needs dialbench[litellm]")
    caplog.set_level(logging.DEBUG)
    given = python_bot(tmp_path, monkeypatch) if backend == "python-bot" else model(backend, server)
    config = ModelConfig.model_validate(given)
    with pytest.raises(CallFailed) as failed:
        Runner(quiet=True).model(config).chat_sync([{"role": "user", "content": "hi"}])
    if backend != "python-bot":  # the server did see the secrets it echoed
        assert any(HEADER_KEY in str(r.headers) and URL_KEY in r.path_qs for r in server.received)
    shown(str(failed.value))
    assert not [secret for secret in SECRETS if secret in caplog.text]


def test_a_long_error_is_redacted_whole_then_cut(
    server: LeakyServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A secret that straddles the cut is redacted before the cut: no prefix of it survives."""
    server.echo_padding = ERROR_TEXT_LIMIT - 30  # the header's value echoed across the cut
    config = ModelConfig.model_validate(model("http-bot", server))
    with pytest.raises(CallFailed) as failed:
        Runner(quiet=True).model(config).chat_sync([{"role": "user", "content": "hi"}])
    reason = failed.value.reason
    assert len(reason) == ERROR_TEXT_LIMIT
    assert reason.endswith("…")
    assert HEADER_KEY[:6] not in reason


def test_a_bots_echoed_secrets_are_not_in_the_stored_dialogue(
    server: LeakyServer, tmp_path: Path
) -> None:
    chatbot = http_bot(server) | {"max_attempts": 1}
    setup = simulation(user_script(), chatbot, languages=["en"], seeds={"contexts": 1})
    simulate(setup, tmp_path / "run", quiet=True)
    with RunStore.open(tmp_path / "run") as store:
        [dialogue] = store.records(Dialogue)
    assert dialogue.end_reason == "error"
    shown(str(dialogue.metadata["error"]))
    for path in (tmp_path / "run").rglob("*"):
        assert not path.is_file() or HEADER_KEY.encode() not in path.read_bytes()
        assert not path.is_file() or URL_KEY.encode() not in path.read_bytes()


def test_a_judges_echoed_secrets_are_not_stored_exported_or_printed(
    server: LeakyServer, tmp_path: Path, cli: RunCli
) -> None:
    spec = f"openai-compat:{server.url(f'/v1?api_key={URL_KEY}')}#judge"
    chatted = cli("chat", spec, "hi", "--api-key-env", "LEAKY_KEY", ok=False)
    assert chatted.returncode == 1
    shown(chatted.stderr)
    run = tmp_path / "run"
    cli("import", examples.bundled()["multilingual_dialogues"], "--run", run)
    judged = cli(
        "judge", run, "--protocol", "holistic", "--judge", spec, "--api-key-env", "LEAKY_KEY",
        "--limit", "1", "--language", "en", ok=False,
    )  # fmt: skip
    cli("export", run, "--records", "judgments", "--format", "jsonl")
    shown((run / "export" / "judgments.jsonl").read_text(encoding="utf-8"))
    written = b"".join(path.read_bytes() for path in run.rglob("*") if path.is_file())
    assert not [secret for secret in SECRETS if secret.encode() in written]
    assert not [secret for secret in SECRETS if secret in judged.stdout + judged.stderr]
