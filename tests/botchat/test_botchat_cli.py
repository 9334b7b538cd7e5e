"""The BotChat commands as a user runs them, on the real MuTual ChatSEEDs and a loopback
OpenAI-compatible server that echoes: self-chat, a re-run with zero calls, a judge that answers
garbage, nothing to compare, bad input (each a clear message, nothing half-stored), and a
self-chat killed with SIGKILL that resumes without asking a completed utterance again."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from dialbench.schema import Dialogue, Judgment
from dialbench.store import RunStore
from tests.botchat.helpers import seed_dialogue, seeded_run
from tests.conftest import DIALBENCH, RunCli
from tests.llm.loopback_server import Loopback, start_loopback


@pytest.fixture(scope="module")
def echo_server() -> Iterator[Loopback]:
    server = start_loopback()
    yield server
    server.stop()


def test_selfchat_judge_and_arena_from_the_command_line(
    cli: RunCli, tmp_path: Path, mutual_xlsx: Path, echo_server: Loopback
) -> None:
    run = tmp_path / "run"
    cli("import", mutual_xlsx, "--run", run)
    models = ("--model", echo_server.spec("bot-a"), "--model", echo_server.spec("bot-b"))
    args = ("selfchat", run, *models, "--n", "4", "--limit", "2", "--quiet")
    done = cli(*args, "--min-seed-utterances", "4")
    assert "2 ChatSEED(s), 4 dialogue(s): 0 already stored, 4 generated" in done.stdout
    assert "utterance lengths (cl100k_base tokens" in done.stdout
    asked = echo_server.stats()["requests"]
    assert asked == 2 * 2 * 2  # seeds x models x generated utterances
    again = cli(*args, "--min-seed-utterances", "4")
    assert "4 already stored, 0 generated" in again.stdout
    assert echo_server.stats()["requests"] == asked
    with RunStore.open(run) as store:
        chats = list(store.records(Dialogue, source="selfchat"))
    assert len(chats) == 4
    assert all(len(d.turns) == 4 and d.end_reason == "turn_cap" for d in chats)
    assert all(str(d.metadata["chatseed_dialogue"]).startswith("mutual:") for d in chats)

    garbage = cli(
        "judge", run, "-p", "unieval", "--judge", echo_server.spec("j"), "--quiet", ok=False
    )
    assert garbage.returncode == 1
    assert "4 of 4 judgments failed: 4 × " in garbage.stderr
    assert garbage.stderr.splitlines()[-1].startswith("error: every judgment is unscored")
    with RunStore.open(run) as store:
        judged = list(store.records(Judgment, protocol="unieval"))
    assert len(judged) == 4  # the self-chats only, never the 547 human seeds
    assert {j.parse_status for j in judged} == {"unscored"}

    # both echo models write the same words: identical dialogues are never compared
    nothing = cli("arena", run, "--judge", echo_server.spec("j"), ok=False)
    assert nothing.returncode == 1
    assert "no two different self-chats from the same ChatSEED" in nothing.stderr
    bad = cli("arena", run, "--no-judge", "--pass-at", "4,x", ok=False)
    assert "--pass-at '4,x': write numbers" in bad.stderr
    results = cli("arena", run, "--no-judge", "--pass-at", "3,4")
    assert "note: no scored arena judgments" in results.stdout
    assert f"dialbench report {run}" in results.stdout
    assert not (run / "botchat").exists()  # one report: dialbench report
    cli("report", run)
    assert (run / "report" / "tables" / "selfchat_lengths.csv").exists()
    assert (run / "report" / "plots" / "selfchat_lengths_violin.png").exists()
    assert "Self-chat utterance lengths" in (run / "report" / "report.md").read_text()


def test_selfchat_concurrency_is_also_each_http_models_limit(
    cli: RunCli, tmp_path: Path, mutual_xlsx: Path
) -> None:
    run = tmp_path / "run"
    cli("import", mutual_xlsx, "--run", run)
    server = start_loopback(0.3)
    try:
        args = ("--n", "3", "--limit", "40", "--concurrency", "40", "--quiet")
        cli("selfchat", run, "--model", server.spec("bot"), *args)
        assert server.stats()["max_in_flight"] == 40  # not the HTTP default of 32
    finally:
        server.stop()


def test_bad_selfchat_input_is_one_clear_line(
    cli: RunCli, tmp_path: Path, mutual_xlsx: Path
) -> None:
    run = tmp_path / "run"
    cli("import", mutual_xlsx, "--run", run)
    short = cli("selfchat", run, "--model", "openai:gpt-4.1", "--n", "1", ok=False)
    assert short.returncode == 1
    assert "error: --n 1 is smaller than the ChatSEED of mutual:" in short.stderr
    unknown = cli("selfchat", run, "--model", "nope:model", ok=False)
    assert "unknown backend 'nope'" in unknown.stderr
    none = cli("selfchat", run, ok=False)
    assert "name at least one model" in none.stderr
    empty = cli("selfchat", tmp_path / "missing", "--model", "openai:gpt-4.1", ok=False)
    assert empty.returncode == 1
    assert "Traceback" not in empty.stderr
    with RunStore.open(run) as store:
        assert list(store.records(Dialogue, source="selfchat")) == []


def cached_calls(run: Path) -> int:
    with sqlite3.connect(run / "dialbench.sqlite") as db:
        return int(db.execute("SELECT COUNT(*) FROM llm_cache").fetchone()[0])


def test_a_killed_selfchat_resumes_without_asking_a_completed_utterance_again(
    tmp_path: Path,
) -> None:
    server = start_loopback(0.15)
    try:
        run = seeded_run(tmp_path / "run", [seed_dialogue(i) for i in range(6)])
        command = [
            str(DIALBENCH),
            *("selfchat", str(run), "--model", server.spec("bot"), "--n", "6"),
            *("--concurrency", "1", "--quiet"),
        ]
        job = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and len(self_chats(run)) < 2:
            time.sleep(0.05)
        job.send_signal(signal.SIGKILL)
        job.wait()
        asked_before_kill = int(server.stats()["requests"])
        stored, cached = len(self_chats(run)), cached_calls(run)
        assert 2 <= stored < 6
        subprocess.run(command, check=True, capture_output=True, timeout=120)
        stats = server.stats()
        resumed = int(stats["requests"]) - asked_before_kill
        # Asked again: at most the one call in flight at the kill (concurrency 1), never an
        # answered one. A stored dialogue's calls are all known, even the one whose cache row
        # the cache's writer thread had not committed yet when the dialogue was.
        assert int(stats["repeated"]) <= 1
        assert resumed <= 6 * 4 - max(cached, 4 * stored) + 1
        assert [len(d.turns) for d in self_chats(run)] == [6] * 6
    finally:
        server.stop()


def self_chats(run: Path) -> list[Dialogue]:
    with RunStore.open(run) as store:
        return list(store.records(Dialogue, source="selfchat"))
