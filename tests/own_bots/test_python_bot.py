"""`python:MODULE:FUNCTION` as the chatbot of a simulation: what the function gets, errors named
before any call, and a failing bot whose dialogues end as errors the next run redoes."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from dialbench.errors import DialbenchError
from dialbench.llm.daemon_threads import still_running
from dialbench.schema import Dialogue
from dialbench.simulate import simulate
from dialbench.store import RunStore
from tests.own_bots.conftest import WriteBot, config, module, user_script

SYNC_BOT = """
    SEEN = []

    def reply(request):
        SEEN.append(request)
        return f"Answer {len(request.messages)} in {request.language}"
"""
ASYNC_BOT = """
    import asyncio

    from dialbench.llm.bots import BotReply
    from dialbench.schema import Usage

    SEEN = []

    async def reply(request):
        SEEN.append(request)
        await asyncio.sleep(0)
        text = f"Answer {len(request.messages)} in {request.language}"
        return BotReply(text=text, usage=Usage(prompt_tokens=3, completion_tokens=4))
"""


@pytest.mark.parametrize("source", [SYNC_BOT, ASYNC_BOT], ids=["sync", "async"])
def test_a_python_function_is_the_chatbot(write_bot: WriteBot, tmp_path: Path, source: str) -> None:
    name, spec = write_bot(source)
    user = user_script()
    summary = simulate(config(user, spec), tmp_path / "run", quiet=True)
    assert summary.end_reasons == {"turn_cap": 4}
    seen = module(name).SEEN
    with RunStore.open(tmp_path / "run") as store:
        dialogues = {d.id: d for d in store.records(Dialogue)}
    assert {d.participants.assistant for d in dialogues.values()} == {spec}
    assert len(seen) == 8  # two chatbot turns in each of four dialogues
    for request in seen:
        dialogue = dialogues[request.conversation_id]
        assert request.language == dialogue.language
        assert request.session_id is None
        assert [m.role for m in request.messages][-1] == "user"
        assert "system" not in {m.role for m in request.messages}  # a bot has its own prompt
        turns = [t.text for t in dialogue.turns[: len(request.messages)]]
        assert [m.content for m in request.messages] == turns
    again = simulate(config(user, spec), tmp_path / "run", quiet=True)
    assert (again.already_stored, len(module(name).SEEN)) == (4, 8)


@pytest.mark.parametrize(
    ("source", "spec", "says"),
    [
        ("", "python:no_such_bot_module:reply", "no module 'no_such_bot_module'"),
        ("def answer(request):\n    return 'hi'\n", None, "has no 'reply'"),
        ("def reply(request, history):\n    return 'hi'\n", None, "must take one argument"),
        ("reply = 42\n", None, "is not a function"),
        ("import no_such_dependency\n", None, "No module named 'no_such_dependency'"),
    ],
    ids=["module", "function", "signature", "not-callable", "import-fails"],
)
def test_a_bot_that_cannot_be_called_is_named_before_any_call(
    write_bot: WriteBot, tmp_path: Path, source: str, spec: str | None, says: str
) -> None:
    _, written = write_bot(source)
    spec = spec or written
    user = user_script()
    with pytest.raises(DialbenchError, match=f"model spec '{spec}'.*{says}"):
        simulate(config(user, spec), tmp_path / "run", quiet=True)
    assert user.requests == []
    with RunStore.open(tmp_path / "run") as store:
        assert list(store.records(Dialogue)) == []


FAILING_BOT = """
    import asyncio

    BROKEN = True
    CALLS = []

    async def reply(request):
        CALLS.append(request.conversation_id)
        if BROKEN and request.language == "de":
            {failure}
        return "Gern geschehen." if request.language == "de" else "You're welcome."
"""


@pytest.mark.parametrize(
    ("failure", "says", "attempts"),
    [
        ("raise RuntimeError('index offline')", "RuntimeError: index offline", 2),
        ("return '  '", "returned an empty reply", 1),
        ("await asyncio.sleep(5)", "no reply within 0.3s", 2),
        ("return 42", "answered a int", 1),
    ],
    ids=["exception", "empty", "timeout", "wrong-type"],
)
def test_a_failing_bot_ends_its_dialogues_as_errors_that_the_next_run_redoes(
    write_bot: WriteBot, tmp_path: Path, failure: str, says: str, attempts: int
) -> None:
    """Exceptions and timeouts are retried (max_attempts), an empty or mistyped answer is not;
    either way the rest of the run completes and the next run redoes only the failed ones."""
    name, spec = write_bot(FAILING_BOT.format(failure=failure))
    bot = {"spec": spec, "max_attempts": 2, "timeout_s": 0.3}
    user = user_script()
    first = simulate(config(user, bot), tmp_path / "run", quiet=True)
    assert first.end_reasons == {"turn_cap": 2, "error": 2}
    with RunStore.open(tmp_path / "run") as store:
        failed = [d for d in store.records(Dialogue) if d.end_reason == "error"]
    assert {d.language for d in failed} == {"de"}
    assert all(says in d.metadata["error"] for d in failed)
    calls = module(name).CALLS
    assert sorted(calls.count(d.id) for d in failed) == [attempts, attempts]
    module(name).BROKEN = False
    second = simulate(config(user, bot), tmp_path / "run", quiet=True)
    assert (second.already_stored, second.end_reasons) == (2, {"turn_cap": 2})


CALLABLE_OBJECT_BOT = """
    class Bot:
        async def __call__(self, request):
            return f"object answers in {request.language}"

    reply = Bot()
"""


def test_an_object_with_an_async_call_is_awaited(write_bot: WriteBot, tmp_path: Path) -> None:
    _, spec = write_bot(CALLABLE_OBJECT_BOT)
    simulate(config(user_script(), spec), tmp_path / "run", quiet=True)
    with RunStore.open(tmp_path / "run") as store:
        replies = {d.turns[1].text for d in store.records(Dialogue)}
    assert replies == {"object answers in en", "object answers in de"}


BLOCKING_BOT = """
    import threading
    import time

    THREADS = set()

    def reply(request):
        THREADS.add(threading.current_thread().name)
        time.sleep(0.2)  # a blocking client, say
        return "Noted."
"""


def test_a_sync_bot_that_blocks_runs_in_threads_and_dialogues_still_run_side_by_side(
    write_bot: WriteBot, tmp_path: Path
) -> None:
    """A sync bot runs in threads (so a timeout can leave a hung call behind): four dialogues
    of a blocking bot take about two calls' time, not eight."""
    name, spec = write_bot(BLOCKING_BOT)
    started = time.perf_counter()
    summary = simulate(config(user_script(), spec), tmp_path / "run", quiet=True)
    assert summary.end_reasons == {"turn_cap": 4}
    assert any(thread.startswith("python-bot") for thread in module(name).THREADS)
    assert time.perf_counter() - started < 8 * 0.2  # eight calls one after another


SLOW_BOT = """
    import threading
    import time

    RUNNING = []
    MOST = [0]
    LOCK = threading.Lock()

    def reply(request):
        with LOCK:
            RUNNING.append(request.conversation_id)
            MOST[0] = max(MOST[0], len(RUNNING))
        time.sleep(5)  # far past the time-out, and the simulation's end
        with LOCK:
            RUNNING.remove(request.conversation_id)
        return "Too late."
"""


def test_calls_abandoned_at_their_time_out_still_count_against_the_bots_concurrency(
    write_bot: WriteBot, tmp_path: Path
) -> None:
    """A call given up on goes on in its thread, which the next call does not get: the bot
    never has more calls running than its concurrency, and the command can say which are left."""
    name, spec = write_bot(SLOW_BOT)
    bot = {"spec": spec, "max_attempts": 2, "timeout_s": 0.2, "max_concurrency": 2}
    summary = simulate(config(user_script(), bot), tmp_path / "run", quiet=True)
    assert summary.end_reasons == {"error": 4}
    assert module(name).MOST == [2]
    assert any(f"to {spec} still running after their 0.2s time-out" in s for s in still_running())
