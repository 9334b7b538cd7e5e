"""`probe`: the probe set stored in a run directory, judged clean and injected by one judge
under each protocol asked, the shift of its verdicts written to `RUN/probe/shift.json` and the
judge's card to `RUN/probe/card.json`: the typed call behind `dialbench probe`."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, JsonValue, ValidationError

from dialbench.errors import DialbenchError
from dialbench.hashing import content_hash
from dialbench.io.validation import describe_error
from dialbench.judge.api import judge
from dialbench.judge.config import JudgeConfig
from dialbench.judge.judging import JudgeResult
from dialbench.judge.settings import JudgeSettings
from dialbench.llm.specs import ModelConfig
from dialbench.probes.card import (
    SELF_FAMILY,
    CardRow,
    JudgeCard,
    Spend,
    agreement,
    card_rows,
    spend,
)
from dialbench.probes.injections import (
    INJECTIONS_FILE,
    KINDS,
    LANGUAGES,
    Kind,
    ProbeLanguage,
    load_injections,
)
from dialbench.probes.probe_set import (
    PLACEMENTS,
    SOURCE,
    Placement,
    probe_dialogues,
    replay_twins,
)
from dialbench.probes.shift import (
    PAIRED,
    ProbedProtocol,
    ProtocolShift,
    probe_pairs,
    protocol_shift,
)
from dialbench.replay_records import SOURCE as REPLAY_SOURCE
from dialbench.resampling import RESAMPLES
from dialbench.schema import Dialogue, Judgment, Provenance, Record
from dialbench.store import RunStore

ISSUES: ProbedProtocol = "issues"
PROBE_FOLDER = "probe"
SHIFT_FILE = "shift.json"
CARD_FILE = "card.json"
# Turn protocols judge only the last chatbot turn: the one that holds or follows the injection.
PROTOCOL_OPTIONS: dict[str, dict[str, JsonValue]] = {"submetrics": {"turns": "last"}}


class ProbeConfig(Record):
    """One judge, the protocols to probe it under, and which probes."""

    judge: ModelConfig
    protocols: list[ProbedProtocol] = Field(default_factory=lambda: [ISSUES], min_length=1)
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
    dialogues: int = Field(
        description="probe dialogues: clean and injected versions, and the injected versions' "
        "replay twins where the pair protocol is probed"
    )
    shifts: list[ProtocolShift]


class ProbeResult(Record):
    shifts: ProbeShifts
    card: JudgeCard
    judged: list[JudgeResult]
    path: Path = Field(description="where shift.json was written")
    card_path: Path


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
    protocol: ProbedProtocol,
    dialogues: list[Dialogue],
    quiet: bool,
) -> tuple[JudgeResult, ProtocolShift, list[CardRow], Spend]:
    judged = judge(
        JudgeConfig(
            protocol=protocol,
            options=PROTOCOL_OPTIONS.get(protocol, {}),
            judges=[config.judge],
            settings=JudgeSettings(fence=config.fence),
            sources=[SOURCE, REPLAY_SOURCE] if protocol == PAIRED else [SOURCE],
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
    pairs = probe_pairs(protocol, dialogues, judgments)
    shift = protocol_shift(
        protocol, config.judge.spec, tally.configuration, pairs, resamples=config.resamples
    )
    rows = card_rows(protocol, dialogues, judgments, pairs, resamples=config.resamples)
    made = tally.judgments - tally.already_ok
    spent = spend(protocol, tally.configuration, made, judged.seconds, judgments)
    return judged, shift, rows, spent


def _earlier_spend(card_path: Path) -> list[Spend]:
    """What the card written before in this run directory measured; none where there is no
    card there (or one that no longer reads as one)."""
    if not card_path.exists():
        return []
    try:
        return read_card(card_path).spend
    except DialbenchError:
        return []


def probe(config: ProbeConfig, run_dir: str | Path, *, quiet: bool = False) -> ProbeResult:
    """Build the probe set into `run_dir`, judge it under each protocol, write the shifts."""
    run_dir = Path(run_dir)
    injections = load_injections()
    dialogues = probe_dialogues(config.languages, config.kinds, config.placements, config.limit)
    if not dialogues:
        raise DialbenchError("no base dialogue in the languages asked")
    if PAIRED in config.protocols:
        dialogues += replay_twins(dialogues)
    _stored(config, run_dir, dialogues, injections.sha256)
    judged, shifts, rows, spent = [], [], [], []
    for protocol in dict.fromkeys(config.protocols):
        result, shift, protocol_rows, protocol_spend = _shift(
            config, run_dir, protocol, dialogues, quiet
        )
        judged.append(result)
        shifts.append(shift)
        rows += protocol_rows
        spent.append(protocol_spend)
    figures, notes = agreement(config.judge.spec)
    earlier = _earlier_spend(run_dir / PROBE_FOLDER / CARD_FILE)
    card = JudgeCard(
        judge=config.judge.spec,
        fence=config.fence,
        rows=rows,
        spend=[protocol_spend.or_earlier(earlier) for protocol_spend in spent],
        agreement=figures,
        notes=[*notes, SELF_FAMILY],
    )
    written = ProbeShifts(
        config=config,
        injections_sha256=injections.sha256,
        dialogues=len(dialogues),
        shifts=shifts,
    )
    folder = run_dir / PROBE_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    path, card_path = folder / SHIFT_FILE, folder / CARD_FILE
    path.write_text(written.model_dump_json(indent=2) + "\n", encoding="utf-8")
    card_path.write_text(card.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return ProbeResult(shifts=written, card=card, judged=judged, path=path, card_path=card_path)


def read_card(path: Path) -> JudgeCard:
    """The card at `path`: a card.json, or the run directory `dialbench probe` wrote it in."""
    found = path / PROBE_FOLDER / CARD_FILE if path.is_dir() else path
    try:
        return JudgeCard.model_validate_json(found.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DialbenchError(f"{found}: no judge card (write one with dialbench probe)") from None
    except ValidationError as invalid:
        field, message = describe_error(invalid.errors()[0])
        raise DialbenchError(f"{found}: not a judge card: {field}: {message}") from None
