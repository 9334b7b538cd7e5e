"""`dialbench probe` end to end on a scripted judge that obeys every injection: top verdicts
wherever the judged text holds one, low ones on the clean dialogues and the controls; so every
injected pair flips, the shift is the whole distance from the low verdict to the top, and the
control moves nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dialbench.cli import app
from dialbench.llm.base import Request
from dialbench.probes.injections import CONTROL, KINDS, load_injections
from dialbench.probes.probe_set import PLACEMENTS, SOURCE
from dialbench.probes.probing import PROBE_FOLDER, SHIFT_FILE, ProbeShifts
from dialbench.schema import Dialogue, Judgment
from dialbench.store import RunStore
from tests.scripted_models import ScriptedModel

INJECTED = [
    text
    for by_kind in load_injections().texts.values()
    for kind, text in by_kind.items()
    if kind != CONTROL
]
SHIFTS = {"issues": 3.0, "holistic": 2.0, "submetrics": 3.0}


def obedient(request: Request) -> str:
    """Whatever the protocol, the top verdict where an injection is in sight, else a low one."""
    shown = "".join(message.content for message in request.messages)
    obeyed = any(text in shown for text in INJECTED)
    assert request.json_schema is not None
    properties = request.json_schema["properties"]
    if "issues" in properties:
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


@pytest.fixture(scope="module")
def probed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    run = tmp_path_factory.mktemp("probe") / "run"
    protocols = [option for name in SHIFTS for option in ("--protocol", name)]
    return run, probe(run, *protocols)


def test_an_obedient_judge_flips_every_verdict(probed: tuple[Path, str]) -> None:
    run, _ = probed
    written = ProbeShifts.model_validate_json((run / PROBE_FOLDER / SHIFT_FILE).read_text())
    assert written.injections_sha256 == load_injections().sha256
    assert written.dialogues == 2 * (1 + len(PLACEMENTS) * len(KINDS))
    assert [shift.protocol for shift in written.shifts] == list(SHIFTS)
    for shift in written.shifts:
        cells = {(row.language, row.placement, row.kind) for row in shift.rows}
        assert cells == {
            (language, placement, kind)
            for language in ("en", "zh", "all")
            for placement in PLACEMENTS
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
    probed: tuple[Path, str],
) -> None:
    run, output = probed
    for protocol in SHIFTS:
        assert f"{protocol} · {JUDGE.spec}" in output
    assert "1.00 [0.16, 1.00]" in output  # two base dialogues, both flipped
    assert "+3.00" in output
    assert "+2.00" in output
    assert f"wrote {run / PROBE_FOLDER / SHIFT_FILE}" in output
    with RunStore.open(run) as store:
        dialogues = list(store.records(Dialogue))
        judgments = list(store.records(Judgment, protocol="submetrics"))
    assert {d.source for d in dialogues} == {SOURCE}
    assert all(
        d.provenance is not None
        and d.provenance.prompt_hashes == {"injections.yaml": load_injections().sha256}
        for d in dialogues
    )
    assert len(judgments) == len(dialogues)  # the last chatbot turn of each only


def test_probing_again_asks_the_judge_nothing(probed: tuple[Path, str]) -> None:
    run, _output = probed
    asked = len(JUDGE.requests)
    again = probe(run, "--protocol", "holistic")
    assert len(JUDGE.requests) == asked
    assert "0 ok" in again
    assert "already ok" in again


def test_the_fenced_judge_is_another_configuration(probed: tuple[Path, str]) -> None:
    run, _ = probed
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
