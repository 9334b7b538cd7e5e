"""What a request knows about the annotators, read once per request and cheaply: their records
and the benchmarks, parsed only when their stored JSON changed, and which dialogues each one
has started and finished, read as columns without the labels. Assignments and progress come
from it, for one annotator's write as for the organiser's page of forty."""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from dialbench.errors import DialbenchError
from dialbench.schema import Annotator, Benchmark, BenchmarkItem, Record, StoredRecord
from dialbench.store import RunStore
from dialbench.web.annotators import AssignmentSettings, Shares
from dialbench.web.review_task import ReviewTask

R = TypeVar("R", bound=StoredRecord)


@functools.lru_cache(maxsize=1024)
def _parse(record_type: type[StoredRecord], stored: str) -> StoredRecord:
    return record_type.model_validate_json(stored)


def _parsed(record_type: type[R], stored: str) -> R:
    """A stored record parsed once: the app reads these on every request and never changes them."""
    found = _parse(record_type, stored)
    assert isinstance(found, record_type)
    return found


def stored_annotators(store: RunStore) -> list[Annotator]:
    return [_parsed(Annotator, text) for text in store.records_json(Annotator)]


class Progress(Record):
    annotator: str
    benchmark: str | None  # None: a reviewer only
    languages: list[str]
    done: int
    started: int = 0
    assigned: int
    revoked: bool = False
    gold_items: int = 0
    gold_issue_accuracy: float | None = None
    gold_overall_mean_abs_difference: float | None = None


@dataclass(frozen=True)
class Roster:
    """The annotators and benchmarks as stored, and how each benchmark is shared out among its
    annotators: the same on every request until one of them changes, so worked out once.
    Reviewers with no benchmark share the dialogues under review (`reviewed`; none when the
    server reviews no judge) as a benchmark's annotators share its items."""

    annotators: list[Annotator]
    benchmarks: dict[str, Benchmark]
    overlap: int | None
    reviewed: list[BenchmarkItem] = field(default_factory=list)
    shares: dict[str | None, Shares] = field(default_factory=dict)  # benchmark -> its shares

    def benchmark(self, name: str) -> Benchmark:
        found = self.benchmarks.get(name)
        if found is None:
            known = ", ".join(sorted(self.benchmarks)) or "none yet"
            raise DialbenchError(f"no benchmark named {name!r} (have: {known})")
        return found

    def shares_of(self, benchmark: str | None) -> Shares:
        found = self.shares.get(benchmark)
        if found is None:
            items = self.reviewed if benchmark is None else self.benchmark(benchmark).items
            colleagues = [a for a in self.annotators if a.benchmark == benchmark]
            found = self.shares[benchmark] = Shares.of(items, colleagues, self.overlap)
        return found


@functools.lru_cache(maxsize=8)
def _roster(
    annotators: tuple[str, ...],
    benchmarks: tuple[str, ...],
    overlap: int | None,
    review: ReviewTask | None = None,
) -> Roster:
    """The roster of these stored records (JSON texts: the key compares them, cheaply); under
    a `review`, each benchmark holds only the dialogues it judged."""
    parsed = [_parsed(Benchmark, text) for text in benchmarks]
    if review is not None:
        parsed = [
            b.model_copy(
                update={"items": [i for i in b.items if i.dialogue_id in review.dialogues]}
            )
            for b in parsed
        ]
    return Roster(
        [_parsed(Annotator, text) for text in annotators],
        {b.name: b for b in parsed},
        overlap,
        review.items if review is not None else [],
    )


def _with_gold(settings: AssignmentSettings, only: Sequence[str] | None) -> list[str] | None:
    """`only` these annotators and the gold annotator, whose labels each one's share needs."""
    if only is None:
        return None
    return [*only, *([settings.gold_annotator] if settings.gold_annotator else [])]


def _stored_roster(
    store: RunStore, settings: AssignmentSettings, review: ReviewTask | None = None
) -> Roster:
    return _roster(
        tuple(store.records_json(Annotator)),
        tuple(store.records_json(Benchmark)),
        settings.overlap,
        review,
    )


@dataclass(frozen=True)
class Team:
    settings: AssignmentSettings
    roster: Roster
    labelled: dict[str, dict[str, bool]]  # annotator -> dialogue -> complete

    @classmethod
    def read(
        cls, store: RunStore, settings: AssignmentSettings, only: Sequence[str] | None = None
    ) -> Team:
        """The team, with the labels of `only` these annotators (and the gold annotator's)."""
        wanted = _with_gold(settings, only)
        labelled: dict[str, dict[str, bool]] = defaultdict(dict)
        for annotator, dialogue, complete in store.dialogue_labels(wanted):
            labelled[annotator][dialogue] = complete
        return cls(settings, _stored_roster(store, settings), labelled)

    @classmethod
    def reviewing(
        cls,
        store: RunStore,
        settings: AssignmentSettings,
        task: ReviewTask,
        only: Sequence[str] | None = None,
    ) -> Team:
        """The team as reviewers of a judge (`only` these, and the gold annotator): each one's
        share of their benchmark's dialogues it judged (with no benchmark, of every dialogue it
        judged), shared out as for labelling. A dialogue is started once they answered on any
        of its verdicts, done once its reviews are."""
        wanted = _with_gold(settings, only)
        finished: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        for annotator, judgment, complete in store.review_labels(wanted):
            dialogue = task.dialogue_of.get(judgment)
            if dialogue is not None:
                finished[annotator][dialogue] += complete
        labelled: dict[str, dict[str, bool]] = defaultdict(dict)
        for annotator, dialogues in finished.items():
            for dialogue, reviews in dialogues.items():
                labelled[annotator][dialogue] = reviews == len(task.judgments[dialogue])
        return cls(settings, _stored_roster(store, settings, task), labelled)

    @property
    def annotators(self) -> list[Annotator]:
        return self.roster.annotators

    @property
    def labellers(self) -> list[Annotator]:
        """The annotators of a benchmark: a reviewer with none has nothing to label."""
        return [a for a in self.annotators if a.benchmark is not None]

    def gold_items(self) -> set[str]:
        """The dialogues the gold annotator finished labelling."""
        gold = self.settings.gold_annotator
        return {d for d, complete in self.labelled.get(gold or "", {}).items() if complete}

    def assigned(self, annotator: Annotator) -> list[BenchmarkItem]:
        shares = self.roster.shares_of(annotator.benchmark)
        kept = self.gold_items() | set(self.labelled.get(annotator.name, {}))
        return shares.assigned(annotator, kept)

    def progress(self, annotator: Annotator, assigned: Sequence[str] | None = None) -> Progress:
        """How many of their dialogues (`assigned`, when already known) they finished, and how
        many more they started."""
        if assigned is None:
            assigned = [item.dialogue_id for item in self.assigned(annotator)]
        own = self.labelled.get(annotator.name, {})
        done = sum(1 for d in assigned if own.get(d) is True)
        return Progress(
            annotator=annotator.name,
            benchmark=annotator.benchmark,
            languages=annotator.languages,
            done=done,
            started=sum(1 for d in assigned if d in own) - done,
            assigned=len(assigned),
            revoked=annotator.revoked_at is not None,
        )
