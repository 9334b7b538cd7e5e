"""Replies no store can hold as they came: lone surrogates (what a JSON `"\\ud800"` decodes to)
and replies of megabytes. Each is made storable where it enters dialbench, flagged, and the rest
of the run goes on."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import web

from dialbench.llm.base import Completion
from dialbench.llm.reply_text import MAX_REPLY_BYTES, storable_completion
from dialbench.llm.runner import Runner
from dialbench.llm.specs import ModelConfig
from dialbench.schema import Dialogue
from dialbench.simulate import simulate
from dialbench.store import RunStore
from tests.conftest import RunCli
from tests.own_bots.conftest import WriteBot, config, module, user_script

SURROGATE_BOT = """
    BAD = {}

    def reply(request):
        if BAD.setdefault("id", request.conversation_id) == request.conversation_id:
            return "hi \\ud800 there"
        return f"Answer {len(request.messages)}"
"""
HUGE_BOT = """
    def reply(request):
        return "é" * 5_000_000  # 10 MB of UTF-8
"""
WIRE_SURROGATE = b'"hi \\ud800 there \\ud83d\\ude00"'  # one lone surrogate, one pair: an emoji


def test_a_reply_with_a_lone_surrogate_is_stored_repaired_and_the_run_goes_on(
    write_bot: WriteBot, tmp_path: Path
) -> None:
    name, spec = write_bot(SURROGATE_BOT)
    user = user_script()
    summary = simulate(config(user, spec), tmp_path / "run", quiet=True)
    assert summary.end_reasons == {"turn_cap": 4}
    with RunStore.open(tmp_path / "run") as store:
        dialogues = {d.id: d for d in store.records(Dialogue)}
    assert len(dialogues) == 4
    bad = module(name).BAD["id"]
    repaired = dialogues[bad].turns[1]
    assert repaired.text == "hi \ufffd there"
    assert repaired.metadata == {"replaced_unencodable": True}
    others = [d for d in dialogues.values() if d.id != bad]
    assert all(d.turns[1].text == "Answer 1" and not d.turns[1].metadata for d in others)
    again = simulate(config(user, spec), tmp_path / "run", quiet=True)
    assert again.already_stored == 4


def test_chat_prints_a_reply_with_a_lone_surrogate(cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "oddbot.py").write_text(
        'def reply(request):\n    return "hi \\ud800 there"\n', encoding="utf-8"
    )
    done = cli("chat", "python:oddbot:reply", "hello")
    assert "hi \ufffd there" in done.stdout
    assert "Traceback" not in done.stderr


def test_a_huge_reply_is_cut_to_the_cap_and_the_turn_says_so(
    write_bot: WriteBot, tmp_path: Path
) -> None:
    _, spec = write_bot(HUGE_BOT)
    user = user_script()
    run = config(user, spec, languages=["en"], max_utterances=2)
    simulate(run, tmp_path / "run", quiet=True)
    with RunStore.open(tmp_path / "run") as store:
        dialogues = list(store.records(Dialogue))
    assert len(dialogues) == 2
    for dialogue in dialogues:
        reply = dialogue.turns[1]
        assert len(reply.text.encode("utf-8")) == MAX_REPLY_BYTES  # é is 2 bytes: a boundary
        assert reply.metadata == {"truncated_from_bytes": 10_000_000}
    store_bytes = sum(f.stat().st_size for f in (tmp_path / "run").iterdir() if f.is_file())
    assert store_bytes < 8 * MAX_REPLY_BYTES  # two replies, in a dialogue and in the cache


def test_the_cap_is_a_setting_of_every_model(write_bot: WriteBot, tmp_path: Path) -> None:
    _, spec = write_bot(HUGE_BOT)
    model = ModelConfig.model_validate({"spec": spec, "max_reply_bytes": 1001})
    assert "max_reply_bytes" not in ModelConfig(spec=spec).model_dump()  # identities as before
    assert ModelConfig.model_validate(model.model_dump()) == model
    with Runner(tmp_path / "run") as runner:
        reply = runner.model(model).chat_sync([{"role": "user", "content": "hi"}])
        cached = runner.model(model).chat_sync([{"role": "user", "content": "hi"}])
    assert reply.text == "é" * 500  # 1000 bytes: the 1001st would split a character
    assert (reply.truncated_from_bytes, cached.cached) == (10_000_000, True)
    assert cached.text == reply.text


def test_text_anywhere_in_a_completion_is_made_encodable() -> None:
    odd = "a\ud800b"
    completion = Completion(
        text="ok \ud83d\ude00",  # a pair written as two characters: the emoji it encodes
        raw={"choices": [{"message": {"content": odd}}], odd: [odd]},
        top_logprobs=[{"token": odd, "logprob": -0.1}],
    )
    fixed = storable_completion(completion, MAX_REPLY_BYTES)
    assert fixed.text == "ok \U0001f600"
    assert fixed.raw == {
        "choices": [{"message": {"content": "a\ufffdb"}}],
        "a\ufffdb": ["a\ufffdb"],
    }
    assert fixed.top_logprobs[0].token == "a\ufffdb"
    assert fixed.replaced_unencodable
    fixed.model_dump_json()  # storable
    plain = Completion(text="fine", raw={"n": 2**70})  # orjson refuses the int, nothing to repair
    assert storable_completion(plain, MAX_REPLY_BYTES) == plain


@pytest.fixture
def wire() -> Iterator[str]:
    """A loopback server answering, as an http: bot and as an OpenAI-compatible server, a reply
    whose JSON holds `\\ud800`."""

    async def bot(_: web.Request) -> web.Response:
        return web.Response(
            body=b'{"reply": ' + WIRE_SURROGATE + b"}", content_type="application/json"
        )

    async def completions(_: web.Request) -> web.Response:
        body = (
            b'{"id": "x", "object": "chat.completion", "model": "m", "choices": [{"index": 0, '
            b'"finish_reason": "stop", "message": {"role": "assistant", "content": '
            + WIRE_SURROGATE
            + b'}}], "usage": {"prompt_tokens": 1, "completion_tokens": 2, '
            b'"total_tokens": 3}}'
        )
        return web.Response(body=body, content_type="application/json")

    app = web.Application()
    app.router.add_post("/chat", bot)
    app.router.add_post("/v1/chat/completions", completions)
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(app)
    loop.run_until_complete(runner.setup())
    site = web.TCPSite(runner, "127.0.0.1", 0)
    loop.run_until_complete(site.start())
    port = runner.addresses[0][1]
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}"
    asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result()
    loop.call_soon_threadsafe(loop.stop)
    thread.join()


@pytest.mark.parametrize("backend", ["http", "openai-compat"])
def test_a_lone_surrogate_from_the_wire_is_cached_repaired(
    wire: str, tmp_path: Path, backend: str
) -> None:
    bot = {"url": f"{wire}/chat", "body": {"m": "{{last_user_message}}"}, "reply_path": "reply"}
    model = (
        ModelConfig.model_validate({"spec": "http:odd", "http": bot})
        if backend == "http"
        else ModelConfig(spec=f"openai-compat:{wire}/v1#m")
    )
    with Runner(tmp_path / "run") as runner:
        reply = runner.model(model).chat_sync([{"role": "user", "content": "hi"}])
    assert reply.text == "hi \ufffd there \U0001f600"
    assert reply.replaced_unencodable
    with sqlite3.connect(tmp_path / "run" / "dialbench.sqlite") as db:
        (stored,) = db.execute("SELECT completion FROM llm_cache").fetchone()
    assert Completion.model_validate_json(stored).text == reply.text
