"""The four trace readers (OpenAI chat logs, OpenTelemetry GenAI, Langfuse, LangSmith) through
their one driver: what each bundled example imports is pinned by hash (dialogue ids, turns,
source lines, redaction counts), so a change to the driver that moves a dialogue shows; and each
reader refuses the same bad files the same way."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from dialbench import examples
from dialbench.hashing import canonical_json
from dialbench.io.importer import import_file
from dialbench.schema import Dialogue
from dialbench.store import RunStore

BUNDLED = examples.bundled()
# Example -> the sha256 of what its import stores (see `imported`), and what it redacted.
PINNED = {
    "openai_chat_log": (
        "849d0ffc494bfa54e3cd60fd9bcd7ade885ee92557ed372d3c3152985cdb3767",
        {"email": 6, "phone": 3, "card": 1, "account": 1, "name": 5},
    ),
    "otel_genai_spans": (
        "a0773db3099f1db4d495dfbe6b0e0e1db0172aa97ae4f0d776a3b6bcb7a1d8f1",
        {"email": 0, "phone": 2, "card": 0, "account": 1, "name": 2},
    ),
    "langfuse_traces": (
        "730d549227df9318685d2f57698118619df22843cf400f744001c7c9e247a845",
        {"email": 2, "phone": 1, "card": 0, "account": 0, "name": 3},
    ),
    "langsmith_runs": (
        "d7216a6c848bcfea40691c30768ed16ce7bd29e33c816987d83ca882e7aa9d41",
        {"email": 2, "phone": 1, "card": 0, "account": 0, "name": 1},
    ),
}


def imported(name: str, run: Path) -> tuple[str, dict[str, int]]:
    """The sha256 of the dialogues an example's import stores (each one's id, content and
    source line, in id order), and the redaction counts its report gives."""
    with RunStore.open(run) as store:
        report = import_file(store, BUNDLED[name])
        dialogues = sorted(store.records(Dialogue), key=lambda d: d.id)
    assert report.redacted is not None
    stored: list[Any] = [
        [d.model_dump(mode="json", exclude={"provenance"}), d.provenance and d.provenance.source_line]
        for d in dialogues
    ]
    digest = hashlib.sha256(canonical_json(stored).encode("utf-8")).hexdigest()
    return digest, report.redacted.model_dump()


@pytest.mark.parametrize("name", PINNED)
def test_each_example_imports_the_dialogues_it_always_did(name: str, tmp_path: Path) -> None:
    assert imported(name, tmp_path / "run") == PINNED[name]
