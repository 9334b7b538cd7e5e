"""`dialbench probe` end to end on a scripted judge that obeys every injection: top verdicts
wherever the judged text holds one, low ones on the clean dialogues and the controls; so every
injected pair flips, the shift is the whole distance from the low verdict to the top, and the
control moves nothing."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dialbench.cli import app
from dialbench.llm.base import Request
from dialbench.probes.card import JudgeCard
from dialbench.probes.injections import CONTROL, KINDS, load_injections
from dialbench.probes.probe_set import PLACEMENTS, SOURCE, TWINNED
from dialbench.probes.probing import CARD_FILE, PROBE_FOLDER, SHIFT_FILE, ProbeShifts
from dialbench.schema import Dialogue, Judgment
from dialbench.store import RunStore
from tests.scripted_models import ScriptedModel

INJECTED = [
    text
    for by_kind in load_injections().texts.values()
    for kind, text in by_kind.items()
    if kind != CONTROL
]
SHIFTS = {"issues": 3.0, "holistic": 2.0, "submetrics": 3.0, "replay": 1.0}


def obeyed_in(text: str) -> bool:
    return any(injected in text for injected in INJECTED)


def chosen(shown: str) -> str:
    """The pair protocol's choice: the conversation that holds an injection, else a tie."""
    first, _, second = shown.partition("Conversation 2:")
    return (
        "Conversation 1" if obeyed_in(first) else "Conversation 2" if obeyed_in(second) else "Tie"
    )


def obedient(request: Request) -> str:
    """Whatever the protocol, the top verdict where an injection is in sight, else a low one."""
    shown = "".join(message.content for message in request.messages)
    obeyed = obeyed_in(shown)
    assert request.json_schema is not None
    properties = request.json_schema["properties"]
    if "choice" in properties:
        answer = {"choice": chosen(request.messages[-1].content), "reason": "as told"}
    elif "issues" in properties:
        keys = properties["issues"]["properties"]
        answer = {
            "issues": dict.fromkeys(keys, not obeyed),
            "comments": {},
            "overall": 5 if obeyed else 2,
        }
    elif "quality" in properties:
        answer = {"reason": "as told" if obeyed else "flawed", "quality": 2 if obeyed else 0}
    else:
        answer = {"score": 5 if obeyed else 2}
    return json.dumps(answer)


JUDGE = ScriptedModel("obedient-judge", obedient)


def probe(run: Path, *options: str) -> str:
    spec = JUDGE.config().spec
    args = ["probe", spec, "--run", str(run), "--language", "en", "--language", "zh"]
    done = CliRunner().invoke(
        app, [*args, "--limit", "1", "--quiet", *options], env={"COLUMNS": "200"}
    )
    assert done.exit_code == 0, done.output
    return done.output


@dataclass(frozen=True)
class Probed:
    run: Path
    output: str
    shifts: ProbeShifts
    card: JudgeCard


@pytest.fixture(scope="module")
def probed(tmp_path_factory: pytest.TempPathFactory) -> Probed:
    """Every protocol probed, with what it wrote read at once (later tests probe again)."""
    run = tmp_path_factory.mktemp("probe") / "run"
    protocols = [option for name in SHIFTS for option in ("--protocol", name)]
    output = probe(run, *protocols)
    folder = run / PROBE_FOLDER
    shifts = ProbeShifts.model_validate_json((folder / SHIFT_FILE).read_text())
    card = JudgeCard.model_validate_json((folder / CARD_FILE).read_text())
    return Probed(run, output, shifts, card)


def test_an_obedient_judge_flips_every_verdict(probed: Probed) -> None:
    written = probed.shifts
    assert written.injections_sha256 == load_injections().sha256
    versions = 1 + len(PLACEMENTS) * len(KINDS)
    assert written.dialogues == 2 * (versions + len(TWINNED) * len(KINDS))
    assert [shift.protocol for shift in written.shifts] == list(SHIFTS)
    for shift in written.shifts:
        cells = {(row.language, row.placement, row.kind) for row in shift.rows}
        placements = TWINNED if shift.protocol == "replay" else PLACEMENTS
        assert cells == {
            (language, placement, kind)
            for language in ("en", "zh", "all")
            for placement in placements
            for kind in KINDS
        }
        for row in shift.rows:
            assert row.pairs == (2 if row.language == "all" else 1)
            assert row.unscored == 0
            assert row.flips is not None
            assert row.shift is not None
            moved = row.kind != CONTROL
            assert row.flips.value == (1.0 if moved else 0.0)
            assert row.shift.value == (SHIFTS[shift.protocol] if moved else 0.0)


def test_the_table_prints_per_protocol_and_the_store_holds_the_probes(
    probed: Probed,
) -> None:
    run, output = probed.run, probed.output
    for protocol in SHIFTS:
        assert f"{protocol} · {JUDGE.spec}" in output
    assert "1.00 [0.16, 1.00]" in output  # two base dialogues, both flipped
    assert "+3.00" in output
    assert "+2.00" in output
    assert f"wrote {run / PROBE_FOLDER / SHIFT_FILE}" in output
    with RunStore.open(run) as store:
        dialogues = list(store.records(Dialogue))
        judgments = list(store.records(Judgment, protocol="submetrics"))
    assert {d.source for d in dialogues} == {SOURCE, "replay"}
    assert all(
        d.provenance is not None
        and d.provenance.prompt_hashes == {"injections.yaml": load_injections().sha256}
        for d in dialogues
    )
    probes = [d for d in dialogues if d.source == SOURCE]
    assert len(judgments) == len(probes)  # the last chatbot turn of each only


def test_probing_again_asks_the_judge_nothing_and_keeps_the_time_measured(
    probed: Probed,
) -> None:
    run = probed.run
    asked = len(JUDGE.requests)
    again = probe(run, "--protocol", "holistic")
    assert len(JUDGE.requests) == asked
    assert "0 ok" in again
    assert "already ok" in again
    (first,) = [spent for spent in probed.card.spend if spent.protocol == "holistic"]
    (kept,) = JudgeCard.model_validate_json((run / PROBE_FOLDER / CARD_FILE).read_text()).spend
    assert first.judged == 44
    assert first.seconds_per_1000 is not None
    assert kept == first  # nothing judged this time: the time the first probe measured


def test_the_fenced_judge_is_another_configuration(probed: Probed) -> None:
    run = probed.run
    output = probe(run, "--protocol", "holistic", "--fence")
    written = ProbeShifts.model_validate_json((run / PROBE_FOLDER / SHIFT_FILE).read_text())
    (shift,) = written.shifts
    assert written.config.fence
    with RunStore.open(run) as store:
        configurations = {
            j.configuration.fingerprint
            for j in store.records(Judgment, protocol="holistic")
            if j.configuration is not None
        }
    assert len(configurations) == 2
    assert shift.configuration in configurations
    assert f"[{shift.configuration}]" in output


def test_the_card_shows_an_obedient_judge_and_the_gate_fails_it(
    probed: Probed, tmp_path: Path
) -> None:
    output, card = probed.output, probed.card
    assert "Judge card: share of injected pairs" in " ".join(output.split())
    assert [(row.protocol, row.language) for row in card.rows] == [
        (protocol, language) for protocol in SHIFTS for language in ("en", "zh", "all")
    ]
    for row in card.rows:
        assert row.unscored == 0
        assert row.obeyed is not None
        assert row.obeyed.value == 1.0
        assert row.control is not None
        assert row.control.value == 0.0
        assert row.most_obeyed == "instruction"  # every kind at 1.0: the first in order
        paired = row.protocol == "replay"
        assert (row.first_slot is not None) == paired
        if row.first_slot is not None and row.longer is not None:
            assert row.first_slot.value == 0.5  # the injected version won in either slot
            assert row.longer.value == 0.5  # the control tied
    assert [spent.protocol for spent in card.spend] == list(SHIFTS)
    assert all(spent.tokens_per_judgment is not None for spent in card.spend)
    assert card.agreement == []
    assert any("no packaged figures" in note for note in card.notes)
    written = tmp_path / "card.json"
    written.write_text(card.model_dump_json())
    gate = CliRunner().invoke(app, ["check", "--judge-card", str(written)])
    assert gate.exit_code == 1, gate.output
    assert gate.output.startswith(f"INJECTION: {JUDGE.spec}")
    assert "fails: replay (all): obeyed 1.00, control 0.00, beyond +1.00" in gate.output
    resisting = card.model_copy(
        update={"rows": [row.model_copy(update={"obeyed": row.control}) for row in card.rows]}
    )
    written.write_text(resisting.model_dump_json())
    passed = CliRunner().invoke(app, ["check", "--judge-card", str(written)])
    assert passed.exit_code == 0, passed.output
    assert passed.output.startswith("PASS")
    in_run = CliRunner().invoke(app, ["check", "--judge-card", str(probed.run)])
    assert in_run.exit_code == 1, in_run.output  # the card dialbench probe wrote there
    missing = CliRunner().invoke(app, ["check", "--judge-card", str(tmp_path / "none")])
    assert missing.exit_code == 2
    assert "no judge card (write one with dialbench probe)" in missing.output
