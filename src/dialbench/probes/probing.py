"""`probe`: the probe set stored in a run directory, judged clean and injected by one judge
under each protocol asked, and the shift of its verdicts written to `RUN/probe/shift.json`:
the typed call behind `dialbench probe`."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, JsonValue

from dialbench.errors import DialbenchError
from dialbench.hashing import content_hash
from dialbench.judge.api import judge
from dialbench.judge.config import JudgeConfig
from dialbench.judge.judging import JudgeResult
from dialbench.judge.settings import JudgeSettings
from dialbench.llm.specs import ModelConfig
from dialbench.probes.injections import (
    INJECTIONS_FILE,
    KINDS,
    LANGUAGES,
    Kind,
    ProbeLanguage,
    load_injections,
)
from dialbench.probes.probe_set import PLACEMENTS, SOURCE, Placement, probe_dialogues
from dialbench.probes.shift import ProtocolShift, ScoredProtocol, protocol_shift
from dialbench.resampling import RESAMPLES
from dialbench.schema import Dialogue, Judgment, Provenance, Record
from dialbench.store import RunStore

ISSUES: ScoredProtocol = "issues"
PROBE_FOLDER = "probe"
SHIFT_FILE = "shift.json"
# Turn protocols judge only the last chatbot turn: the one that holds or follows the injection.
PROTOCOL_OPTIONS: dict[str, dict[str, JsonValue]] = {"submetrics": {"turns": "last"}}


class ProbeConfig(Record):
    """One judge, the protocols to probe it under, and which probes."""

    judge: ModelConfig
    protocols: list[ScoredProtocol] = Field(default_factory=lambda: [ISSUES], min_length=1)
    languages: list[ProbeLanguage] = Field(default_factory=lambda: list(LANGUAGES))
    kinds: list[Kind] = Field(default_factory=lambda: list(KINDS))
    placements: list[Placement] = Field(default_factory=lambda: list(PLACEMENTS))
    limit: int | None = Field(default=None, ge=1, description="base dialogues per language")
    fence: bool = Field(default=False, description="the judged text fenced for the judge")
    resamples: int = Field(default=RESAMPLES, ge=100)


class ProbeShifts(Record):
    """What `shift.json` holds: the shifts, and what they were measured on."""

    config: ProbeConfig
    injections_sha256: str
    dialogues: int = Field(description="probe dialogues: clean and injected versions")
    shifts: list[ProtocolShift]


class ProbeResult(Record):
    shifts: ProbeShifts
    judged: list[JudgeResult]
    path: Path = Field(description="where shift.json was written")


def _stored(config: ProbeConfig, run_dir: Path, dialogues: list[Dialogue], sha256: str) -> None:
    """The probe dialogues in the run's store; refused where its probes were built from other
    injections (their judgments would be read as these texts')."""
    with RunStore.open(run_dir) as store:
        if store.stored_differently(dialogues):
            raise DialbenchError(
                f"{run_dir} holds probe dialogues built from another {INJECTIONS_FILE}: probe "
                "into a new run directory (--run)"
            )
        recorded = {**config.model_dump(mode="json"), "injections_sha256": sha256}
        with store.invocation("probe", recorded) as run:
            provenance = Provenance(
                run_id=run.id,
                config_hash=content_hash(recorded),
                prompt_hashes={INJECTIONS_FILE: sha256},
            )
            store.add([d.model_copy(update={"provenance": provenance}) for d in dialogues], run)


def _shift(
    config: ProbeConfig,
    run_dir: Path,
    protocol: ScoredProtocol,
    dialogues: list[Dialogue],
    quiet: bool,
) -> tuple[JudgeResult, ProtocolShift]:
    judged = judge(
        JudgeConfig(
            protocol=protocol,
            options=PROTOCOL_OPTIONS.get(protocol, {}),
            judges=[config.judge],
            settings=JudgeSettings(fence=config.fence),
            sources=[SOURCE],
        ),
        run_dir,
        quiet=quiet,
    )
    (tally,) = judged.judges
    ids = {d.id for d in dialogues}
    with RunStore.open(run_dir, create=False) as store:
        judgments = [
            j
            for j in store.records(Judgment, protocol=protocol, judge_model=config.judge.spec)
            if j.target.dialogue_id in ids
            and j.configuration is not None
            and j.configuration.fingerprint == tally.configuration
        ]
    shift = protocol_shift(
        protocol,
        config.judge.spec,
        tally.configuration,
        dialogues,
        judgments,
        resamples=config.resamples,
    )
    return judged, shift


def probe(config: ProbeConfig, run_dir: str | Path, *, quiet: bool = False) -> ProbeResult:
    """Build the probe set into `run_dir`, judge it under each protocol, write the shifts."""
    run_dir = Path(run_dir)
    injections = load_injections()
    dialogues = probe_dialogues(config.languages, config.kinds, config.placements, config.limit)
    if not dialogues:
        raise DialbenchError("no base dialogue in the languages asked")
    _stored(config, run_dir, dialogues, injections.sha256)
    judged, shifts = [], []
    for protocol in dict.fromkeys(config.protocols):
        result, shift = _shift(config, run_dir, protocol, dialogues, quiet)
        judged.append(result)
        shifts.append(shift)
    written = ProbeShifts(
        config=config,
        injections_sha256=injections.sha256,
        dialogues=len(dialogues),
        shifts=shifts,
    )
    path = run_dir / PROBE_FOLDER / SHIFT_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(written.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return ProbeResult(shifts=written, judged=judged, path=path)
