"""Annotators of a benchmark: creating them with their secret token, which dialogues each one
labels (their languages, the overlap wanted, the gold items), and bringing in labels made
elsewhere (in any format holding annotations: JSONL records, the long CSV `metaeval --against`
reads, ...)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from pydantic import Field

from dialbench.errors import DialbenchError
from dialbench.hashing import sha256_text
from dialbench.io.formats import ImportOptions
from dialbench.io.importer import import_file
from dialbench.schema import (
    Annotation,
    Annotator,
    Benchmark,
    BenchmarkItem,
    Record,
    base_language,
    utc_now,
)
from dialbench.store import RunStore
from dialbench.web.auth import new_token


class AssignmentSettings(Record):
    """How a benchmark's items are shared out among its annotators."""

    overlap: int | None = Field(
        default=None, ge=1, description="annotators per dialogue; None = every one of its language"
    )
    gold_annotator: str | None = Field(
        default=None, description="whose labels are the gold answers, shown to every annotator"
    )


class NewAnnotator(Record):
    annotator: Annotator
    token: str


def benchmark_named(store: RunStore, name: str) -> Benchmark:
    found = next(store.records(Benchmark, name=name), None)
    if found is None:
        known = ", ".join(sorted(b.name for b in store.records(Benchmark))) or "none yet"
        raise DialbenchError(f"no benchmark named {name!r} in {store.path} (have: {known})")
    return found


def add_annotator(store: RunStore, name: str, benchmark: str, languages: list[str]) -> NewAnnotator:
    """A new annotator of a stored benchmark; the token is returned once and kept only hashed."""
    benchmark_named(store, benchmark)
    if next(store.records(Annotator, name=name), None) is not None:
        raise DialbenchError(f"an annotator named {name!r} already exists in {store.path}")
    token = new_token()
    annotator = Annotator(
        name=name,
        benchmark=benchmark,
        languages=languages,
        token_sha256=sha256_text(token),
        created_at=utc_now(),
    )
    with store.run("annotate add", {"name": name, "benchmark": benchmark}) as run:
        store.add([annotator], run)
    return NewAnnotator(annotator=annotator, token=token)


def _languages(annotator: Annotator) -> set[str]:
    return {base_language(tag) for tag in annotator.languages}


def gold_items(store: RunStore, settings: AssignmentSettings) -> set[str]:
    """The dialogues the gold annotator labelled."""
    if settings.gold_annotator is None:
        return set()
    return {
        a.target.dialogue_id
        for a in store.records(Annotation, annotator_id=settings.gold_annotator)
    }


def assigned_items(
    store: RunStore, annotator: Annotator, settings: AssignmentSettings
) -> list[BenchmarkItem]:
    """The annotator's dialogues in benchmark order: those in their languages, shared out
    round-robin so each has `overlap` annotators, plus every gold item and every item they
    already labelled (an assignment never takes back work done)."""
    benchmark = benchmark_named(store, annotator.benchmark)
    colleagues = sorted(
        store.records(Annotator, benchmark=annotator.benchmark), key=lambda a: a.name
    )
    speakers: dict[str, list[str]] = defaultdict(list)
    for colleague in colleagues:
        for language in _languages(colleague):
            speakers[language].append(colleague.name)
    mine = _languages(annotator)
    kept = gold_items(store, settings) | {
        a.target.dialogue_id for a in store.records(Annotation, annotator_id=annotator.name)
    }
    seen_in_language: dict[str, int] = defaultdict(int)
    assigned = []
    for item in benchmark.items:
        language = base_language(item.language)
        index = seen_in_language[language]
        seen_in_language[language] += 1
        if language not in mine:
            continue
        shared_by = speakers[language]
        overlap = min(settings.overlap or len(shared_by), len(shared_by))
        chosen = {shared_by[(index * overlap + k) % len(shared_by)] for k in range(overlap)}
        if annotator.name in chosen or item.dialogue_id in kept:
            assigned.append(item)
    return assigned


def import_labels(store: RunStore, path: Path, fmt: str | None = None) -> int:
    """Labels made elsewhere; a label for the same annotator and item replaces the stored one."""
    options = ImportOptions(format=fmt, records="annotations")
    return import_file(store, path, options, on_conflict="replace").read
