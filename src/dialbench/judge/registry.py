"""The judging protocols by name, as `dialbench judge --protocol NAME` knows them: a new
protocol is its package under `judge/protocols/` and one line here."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import JsonValue, ValidationError

from dialbench.errors import DialbenchError
from dialbench.io.validation import describe_error
from dialbench.judge.protocol import JudgeProtocol
from dialbench.judge.protocols.arena import ArenaProtocol
from dialbench.judge.protocols.gteval import GTEvalProtocol
from dialbench.judge.protocols.holistic import HolisticProtocol
from dialbench.judge.protocols.issues import IssuesProtocol
from dialbench.judge.protocols.submetrics import SubmetricsProtocol
from dialbench.judge.protocols.unieval import UniEvalProtocol
from dialbench.judge.settings import JudgeSettings

PROTOCOLS: dict[str, type[JudgeProtocol]] = {
    p.name: p
    for p in (
        IssuesProtocol,
        HolisticProtocol,
        SubmetricsProtocol,
        UniEvalProtocol,
        ArenaProtocol,
        GTEvalProtocol,
    )
}


def get_protocol(
    name: str,
    settings: JudgeSettings | None = None,
    options: Mapping[str, JsonValue] | None = None,
) -> JudgeProtocol:
    """The protocol, its options checked against its own `Options` record."""
    if name not in PROTOCOLS:
        raise DialbenchError(f"unknown protocol {name!r} (known: {', '.join(PROTOCOLS)})")
    protocol = PROTOCOLS[name]
    try:
        return protocol(settings, options)
    except ValidationError as invalid:
        known = ", ".join(protocol.Options.model_fields) or "none"
        problems = "; ".join(": ".join(describe_error(error)) for error in invalid.errors())
        raise DialbenchError(
            f"protocol {name!r} option {problems} (its options: {known})"
        ) from None
