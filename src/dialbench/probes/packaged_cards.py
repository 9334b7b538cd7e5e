"""The packaged judges' cards, as measured on a slice of the probe set, so `dialbench models`
shows how far each small judge obeys text addressed to it before anyone trusts its verdicts.

The cards live in `judge_cards.yaml` beside this module, written by the benchmark that measures
them (`benchmarks/judge_cards.py --write`), never by hand.
"""

from __future__ import annotations

from pydantic import Field

from dialbench.probes.card import JudgeCard
from dialbench.probes.injections import PACKAGE
from dialbench.schema import Record
from dialbench.yaml_records import load_yaml_record, write_yaml_record

CARDS_FILE = "judge_cards.yaml"
COMMAND = ".venv/bin/python benchmarks/judge_cards.py --write"


class PackagedCards(Record):
    measured: str = Field(description="the probe slice and command every card was measured by")
    cards: list[JudgeCard] = Field(default_factory=list)
    sha256: str = ""


def packaged_cards() -> PackagedCards:
    return load_yaml_record(PACKAGE, CARDS_FILE, PackagedCards)


def write_cards(cards: PackagedCards, *, write: bool) -> str:
    """The cards file's text, and written into the package when `write`."""
    return write_yaml_record(PACKAGE, CARDS_FILE, cards, COMMAND, write=write)
