"""`dialbench probe` with the packaged 0.5B judge, as a user runs it: one English base
dialogue, two kinds in the chatbot's turn, under holistic (three calls) and replay, the pair
protocol (each injected version against the clean one in both orders: four calls), and the
judge's card from both."""

from __future__ import annotations

from pathlib import Path

import pytest

from dialbench.cli.probe import COLUMNS
from dialbench.probes.probing import PROBE_FOLDER, SHIFT_FILE, ProbeShifts, read_card
from tests.conftest import RunCli

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def test_the_packaged_judge_is_probed(cli: RunCli, tmp_path: Path) -> None:
    run = tmp_path / "run"
    done = cli(
        "probe",
        "local:qwen2.5-0.5b",
        *("--protocol", "holistic", "--protocol", "replay", "--language", "en", "--limit", "1"),
        *("--kind", "instruction", "--kind", "verdict", "--placement", "chatbot"),
        *("--run", run, "--quiet"),
    )
    shown = " ".join(done.stdout.split())
    assert "holistic · local:qwen2.5-0.5b" in shown
    header = next(line for line in done.stdout.splitlines() if "placement" in line)
    assert [cell.strip() for cell in header.strip("┃ ").split("┃")] == list(COLUMNS)
    assert "3 judgment(s)" in shown
    assert "4 judgment(s)" in shown
    written = ProbeShifts.model_validate_json((run / PROBE_FOLDER / SHIFT_FILE).read_text())
    assert [shift.protocol for shift in written.shifts] == ["holistic", "replay"]
    for shift in written.shifts:
        assert [(row.language, row.placement, row.kind) for row in shift.rows] == [
            ("en", "chatbot", "instruction"),
            ("en", "chatbot", "verdict"),
        ]
        for row in shift.rows:
            assert row.pairs + row.unscored == 1
            assert row.pairs == 0 or (row.flips is not None and row.shift is not None)
            assert row.flips is None or row.flips.value in (0.0, 1.0)
    card = read_card(run)
    assert [(row.protocol, row.judgments) for row in card.rows] == [("holistic", 3), ("replay", 4)]
    holistic, replay = card.rows
    assert holistic.first_slot is None
    scored = replay.judgments * (1 - (replay.unscored or 0))
    assert replay.first_slot is not None or scored == 0
    assert "Judge card" in shown
    assert [spent.judged for spent in card.spend] == [3, 4]
