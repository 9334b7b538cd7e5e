"""The judging protocols by name, as `dialbench judge --protocol NAME` knows them: a new
protocol is its module (or package, with its prompt files) under `judge/protocols/` and one line
here; a plugin registers one under the entry-point group `dialbench.protocols`."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import JsonValue, ValidationError

from dialbench.errors import DialbenchError
from dialbench.io.validation import describe_error
from dialbench.judge.protocol import JudgeProtocol
from dialbench.judge.settings import JudgeSettings
from dialbench.registry import Registry

PROTOCOLS: Registry[type[JudgeProtocol]] = Registry(
    "protocol",
    {
        "issues": "dialbench.judge.protocols.issues:IssuesProtocol",
        "holistic": "dialbench.judge.protocols.holistic:HolisticProtocol",
        "submetrics": "dialbench.judge.protocols.submetrics:SubmetricsProtocol",
        "unieval": "dialbench.judge.protocols.unieval:UniEvalProtocol",
        "arena": "dialbench.judge.protocols.arena:ArenaProtocol",
        "gteval": "dialbench.judge.protocols.gteval:GTEvalProtocol",
        "replay": "dialbench.judge.protocols.replay:ReplayProtocol",
    },
    group="protocols",
)


def get_protocol(
    name: str,
    settings: JudgeSettings | None = None,
    options: Mapping[str, JsonValue] | None = None,
) -> JudgeProtocol:
    """The protocol, its options checked against its own `Options` record."""
    protocol = PROTOCOLS.load(name)
    try:
        return protocol(settings, options)
    except ValidationError as invalid:
        known = ", ".join(protocol.Options.model_fields) or "none"
        problems = "; ".join(": ".join(describe_error(error)) for error in invalid.errors())
        raise DialbenchError(
            f"protocol {name!r} option {problems} (its options: {known})"
        ) from None
