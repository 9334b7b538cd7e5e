"""The domains an evaluator's figures are measured on, so a figure says where it holds.

A metric or judge that agrees with humans on chit-chat may be at chance on a booking or a
support chat: every figure names its domain, and what shows the figures names the domains none
of them measured. The vocabulary is fixed and small; it sits on the floor because the packaged
judges' figures (`llm`) and the packaged metrics' cards (`metrics`) both name it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Final

from pydantic import AfterValidator

DOMAINS: Final = {
    "chit-chat": "open-domain social conversation",
    "task-oriented": "bookings, information, assistants",
    "customer support": "a service agent and a customer",
    "knowledge-grounded": "replies that rest on facts",
}


def _known_domain(domain: str) -> str:
    if domain not in DOMAINS:
        raise ValueError(f"unknown domain {domain!r}: choose from {', '.join(DOMAINS)}")
    return domain


Domain = Annotated[str, AfterValidator(_known_domain)]


def unmeasured(measured: Iterable[str]) -> list[str]:
    """The domains, in their fixed order, that `measured` does not name."""
    named = set(measured)
    return [domain for domain in DOMAINS if domain not in named]


def never_measured_line(domains: list[str]) -> str:
    """What a reader must not take the figures for: empty when no domain is left."""
    if not domains:
        return ""
    return f"never measured: {', '.join(domains)}: these figures say nothing about them"
