"""BotChat end to end on the embedded model, as small as it can be: one MuTual ChatSEED x 2
"models" x N = 4 through self-chat, UniEval, Arena, the results and the report. The two models
are the packaged Qwen2.5 0.5B by name and the same GGUF file by path, with different utterance
caps, so their dialogues differ; the 0.5B model is a weak judge, so only shapes are checked.
One seed: a second doubled the file's time and tested nothing more (the Arena over several
seeds is test_protocols.py's, on scripted judges)."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from dialbench.llm.packaged import PACKAGED_MODELS, ensure_assembled
from dialbench.schema import Dialogue, Judgment
from dialbench.store import RunStore
from tests.conftest import DIALBENCH

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]
QWEN = "local:qwen2.5-0.5b"


def dialbench(*args: str | Path, ok: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(DIALBENCH), *map(str, args)], capture_output=True, text=True, timeout=1200, check=False
    )
    assert not ok or done.returncode == 0, done.stderr
    return done


def test_selfchat_unieval_and_arena_on_the_local_model(tmp_path: Path, mutual_xlsx: Path) -> None:
    by_path = f"local:{ensure_assembled(PACKAGED_MODELS['qwen2.5-0.5b'])}"
    run = tmp_path / "run"
    started = time.perf_counter()
    dialbench("import", mutual_xlsx, "--run", run)
    common = ("--n", "4", "--limit", "1", "--min-seed-utterances", "4", "--quiet")
    dialbench("selfchat", run, "--model", QWEN, "--max-tokens", "40", *common)
    dialbench("selfchat", run, "--model", by_path, "--max-tokens", "16", *common)
    with RunStore.open(run) as store:
        chats = list(store.records(Dialogue, source="selfchat"))
    assert len(chats) == 2
    assert all(len(d.turns) == 4 and d.end_reason == "turn_cap" for d in chats)
    assert {d.participants.assistant for d in chats} == {QWEN, by_path}
    unieval = dialbench("judge", run, "-p", "unieval", "--judge", QWEN, "--quiet", ok=False)
    arena = dialbench("arena", run, "--judge", QWEN, "--rounds", "100", "--resamples", "100", "-q")
    seconds = time.perf_counter() - started
    reported = dialbench("report", run)
    assert "BotChat Arena verdicts" in reported.stdout
    with RunStore.open(run) as store:
        verdicts = list(store.records(Judgment, protocol="unieval"))
        pairs = list(store.records(Judgment, protocol="arena"))
    assert len(verdicts) == 2
    assert unieval.returncode == (0 if any(v.parse_status == "ok" for v in verdicts) else 1)
    for verdict in verdicts:
        if verdict.result is not None:
            index = verdict.result["first_ai_index"]
            assert index is None or (isinstance(index, int) and 1 <= index <= 4)
    assert len(pairs) == 2  # 1 seed x 1 pair x 2 orders
    for pair in pairs:
        assert pair.result is None or pair.result["winner"] in ("first", "second", "tie")
    assert "dialbench report" in arena.stdout
    text = (run / "report" / "report.md").read_text(encoding="utf-8")
    assert "## Self-chat utterance lengths" in text
    assert "## BotChat Arena ratings" in text  # the arena run scored at least one verdict
    print(f"BotChat on the local model, 1 seed x 2 models x N=4: {seconds:.0f} s")
