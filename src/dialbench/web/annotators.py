"""Annotators of a benchmark: creating them with their secret token, which dialogues each one
labels (their languages, the overlap wanted, the gold items), and bringing in labels made
elsewhere (in any format holding annotations: JSONL records, the long CSV `metaeval --against`
reads, ...)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Sequence
from pathlib import Path

from pydantic import Field

from dialbench.errors import DialbenchError
from dialbench.hashing import sha256_text
from dialbench.io.formats import ImportOptions
from dialbench.io.importer import import_file
from dialbench.schema import (
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


def annotator_named(store: RunStore, name: str) -> Annotator:
    found = next(store.records(Annotator, name=name), None)
    if found is None:
        known = ", ".join(sorted(a.name for a in store.records(Annotator))) or "none yet"
        raise DialbenchError(f"no annotator named {name!r} in {store.path} (have: {known})")
    return found


def _new_secret(store: RunStore, name: str, command: str, revoke: bool) -> NewAnnotator:
    """The annotator with a fresh token: the old link opens nothing from the next request on,
    in a running server too (it reads the hashes from the store on every request)."""
    annotator = annotator_named(store, name)
    token = new_token()
    changed = annotator.model_copy(
        update={"token_sha256": sha256_text(token), "revoked_at": utc_now() if revoke else None}
    )
    with store.run(command, {"name": name}) as run:
        store.add([changed], run, on_conflict="replace")
    return NewAnnotator(annotator=changed, token=token)


def revoke_annotator(store: RunStore, name: str) -> Annotator:
    """End an annotator's link; their labels and their share of the dialogues stay."""
    return _new_secret(store, name, "annotate revoke", revoke=True).annotator


def reissue_link(store: RunStore, name: str) -> NewAnnotator:
    """A new secret link for an annotator (revoked or not); the old one is dead at once."""
    return _new_secret(store, name, "annotate reissue", revoke=False)


def _languages(annotator: Annotator) -> set[str]:
    return {base_language(tag) for tag in annotator.languages}


def assigned_items(
    benchmark: Benchmark,
    colleagues: Sequence[Annotator],
    annotator: Annotator,
    kept: Collection[str],
    settings: AssignmentSettings,
) -> list[BenchmarkItem]:
    """The annotator's dialogues in benchmark order: those in their languages, shared out
    round-robin among the benchmark's annotators (`colleagues`) so each has `overlap`
    annotators, plus every dialogue in `kept` (the gold items, and those they already labelled:
    an assignment never takes back work done)."""
    speakers: dict[str, list[str]] = defaultdict(list)
    for colleague in sorted(colleagues, key=lambda a: a.name):
        for language in _languages(colleague):
            speakers[language].append(colleague.name)
    mine = _languages(annotator)
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
