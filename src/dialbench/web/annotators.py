"""Annotators of a benchmark (or reviewers of a judge): creating them with their secret token,
which dialogues each one labels (their languages, the overlap wanted, the gold items), and
bringing in labels made elsewhere (in any format holding annotations: JSONL records, the long
CSV `metaeval --against` reads, ...)."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from pydantic import Field

from dialbench.errors import DialbenchError, InputError, InputErrors
from dialbench.hashing import sha256_text
from dialbench.io.importer import ImportOptions, Loaded, import_file
from dialbench.issue_labels import ISSUES_PREFIX
from dialbench.schema import (
    ANNOTATOR_NAME,
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

USER_HUMANLIKE = "user_humanlike"
SCORES = ("overall", USER_HUMANLIKE)  # the app's two 1-5 scales


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


Named = TypeVar("Named", Benchmark, Annotator)


def _named(store: RunStore, record_type: type[Named], name: str) -> Named:
    found = next(store.records(record_type, name=name), None)
    if found is None:
        known = ", ".join(sorted(r.name for r in store.records(record_type))) or "none yet"
        what = record_type.__name__.lower()
        raise DialbenchError(f"no {what} named {name!r} in {store.path} (have: {known})")
    return found


def benchmark_named(store: RunStore, name: str) -> Benchmark:
    return _named(store, Benchmark, name)


def annotator_named(store: RunStore, name: str) -> Annotator:
    return _named(store, Annotator, name)


def add_annotator(
    store: RunStore, name: str, benchmark: str | None, languages: list[str]
) -> NewAnnotator:
    """A new annotator of a stored benchmark, or with none a reviewer of a judge's verdicts;
    the token is returned once and kept only hashed."""
    if benchmark is not None:
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
    with store.invocation("annotate add", {"name": name, "benchmark": benchmark}) as run:
        store.add([annotator], run)
    return NewAnnotator(annotator=annotator, token=token)


def _new_secret(store: RunStore, name: str, command: str, revoke: bool) -> NewAnnotator:
    """The annotator with a fresh token: the old link opens nothing from the next request on,
    in a running server too (it reads the hashes from the store on every request)."""
    annotator = annotator_named(store, name)
    token = new_token()
    changed = annotator.model_copy(
        update={"token_sha256": sha256_text(token), "revoked_at": utc_now() if revoke else None}
    )
    with store.invocation(command, {"name": name}) as run:
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


@dataclass(frozen=True)
class Shares:
    """How a benchmark's items (or a review's dialogues) are shared out among its annotators
    (`colleagues`): those in their languages, round-robin so each item has `overlap`
    annotators. The item with index i among those of its language goes to the `overlap`
    speakers from position i * overlap on (by name), wrapping round. Worked out once while the
    annotators and the benchmark stay as they are, then asked for each annotator: on every
    write, and for all forty on the organiser's page."""

    items: list[tuple[BenchmarkItem, str, int]]  # item, base language, index in its language
    positions: dict[str, dict[str, int]]  # language -> speaker -> position
    overlap: int | None

    @classmethod
    def of(
        cls, items: Sequence[BenchmarkItem], colleagues: Sequence[Annotator], overlap: int | None
    ) -> Shares:
        positions: dict[str, dict[str, int]] = defaultdict(dict)
        for colleague in sorted(colleagues, key=lambda a: a.name):
            for language in _languages(colleague):
                positions[language][colleague.name] = len(positions[language])
        seen_in_language: dict[str, int] = defaultdict(int)
        placed = []
        for item in items:
            language = base_language(item.language)
            placed.append((item, language, seen_in_language[language]))
            seen_in_language[language] += 1
        return cls(placed, positions, overlap)

    def assigned(self, annotator: Annotator, kept: Collection[str]) -> list[BenchmarkItem]:
        """The annotator's dialogues in benchmark order: their share, plus every dialogue in
        `kept` (the gold items, and those they already labelled: an assignment never takes
        back work done)."""
        mine = _languages(annotator)
        assigned = []
        for item, language, index in self.items:
            if language not in mine:
                continue
            if self._shared_with(annotator.name, language, index) or item.dialogue_id in kept:
                assigned.append(item)
        return assigned

    def _shared_with(self, name: str, language: str, index: int) -> bool:
        speakers = self.positions.get(language, {})
        position = speakers.get(name)
        if position is None:
            return False
        overlap = min(self.overlap or len(speakers), len(speakers))
        return (position - index * overlap) % len(speakers) < overlap


def import_labels(store: RunStore, path: Path, fmt: str | None = None) -> int:
    """Labels made elsewhere; a label for the same annotator and item replaces the stored one.
    Refused, naming the line: a dialogue the run does not hold, an annotator name the app
    cannot have, a score that is not a number, an issue that is not yes or no."""
    options = ImportOptions(format=fmt, records="annotations")
    known = set(store.dialogue_placements())

    def check(path: Path, loaded: Loaded) -> None:
        problems = [
            InputError(path, problem, line=line)
            for line, record in loaded
            if isinstance(record, Annotation)
            for problem in _label_problems(record, known)
        ]
        if problems:
            raise InputErrors(problems)

    return import_file(store, path, options, on_conflict="replace", check=check).read


def _label_problems(annotation: Annotation, dialogues: set[str]) -> Iterator[str]:
    """What makes a label unfit for the app; a null value is a verdict a reviewer skipped."""
    target = annotation.target
    for dialogue_id in (target.dialogue_id, target.other_dialogue_id):
        if dialogue_id is not None and dialogue_id not in dialogues:
            yield f"no dialogue {dialogue_id!r} in this run (import the dialogues first)"
    if not re.fullmatch(ANNOTATOR_NAME, annotation.annotator_id):
        yield (
            f"annotator {annotation.annotator_id!r} is not a name the app can have "
            "(letters, digits, . _ @ -)"
        )
    for key in SCORES:
        value = annotation.labels.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            yield f"{key} must be a number, not {value!r}"
    issues = annotation.labels.get(ISSUES_PREFIX.rstrip("."), {})
    for issue, value in issues.items() if isinstance(issues, dict) else ():
        if value is not None and not isinstance(value, bool):
            yield f"{ISSUES_PREFIX}{issue} must be yes or no (1 or 0), not {value!r}"
