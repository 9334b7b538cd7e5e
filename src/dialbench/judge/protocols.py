"""The judging protocols by name, as `dialbench judge --protocol NAME` knows them."""

from __future__ import annotations

from dialbench.errors import DialbenchError
from dialbench.judge.holistic import HolisticProtocol
from dialbench.judge.issues import IssuesProtocol
from dialbench.judge.protocol import JudgeProtocol
from dialbench.judge.settings import JudgeSettings
from dialbench.judge.submetrics import SubmetricsProtocol

PROTOCOLS: dict[str, type[JudgeProtocol]] = {
    p.name: p for p in (IssuesProtocol, HolisticProtocol, SubmetricsProtocol)
}


def get_protocol(name: str, settings: JudgeSettings | None = None) -> JudgeProtocol:
    if name not in PROTOCOLS:
        raise DialbenchError(f"unknown protocol {name!r} (known: {', '.join(PROTOCOLS)})")
    return PROTOCOLS[name](settings or JudgeSettings())
