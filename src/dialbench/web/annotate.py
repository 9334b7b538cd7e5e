"""Labels as the annotation page sends them, checked before they become `Annotation` records in
the shape the MEDAL issues judge answers in, so `metaeval` compares the two directly; and the
organiser's figures: agreement between annotators, agreement with the gold labels."""

from __future__ import annotations

import importlib
import multiprocessing
import os
import threading
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Annotated

from pydantic import ConfigDict, Field, JsonValue, field_validator, model_validator

from dialbench.issue_labels import load_issue_labels
from dialbench.metaeval.agreement import HumanAgreementRow
from dialbench.schema import Annotation, Annotator, Record, Target, utc_now
from dialbench.store import RunStore
from dialbench.web.annotators import USER_HUMANLIKE
from dialbench.web.team import Progress, Team

Score = Annotated[int, Field(ge=1, le=5)]
MAX_COMMENT = 5000
STATISTICS = "dialbench.metaeval.evaluate"  # agreement_rows' import, which takes seconds


class LabelsIn(Record):
    """One annotator's labels of one dialogue, as the page saves them on every change: the
    issues ticked and the scores given so far, and `done` once the annotator says the dialogue
    is finished. Only then do the issues left unticked count as answers ("not an issue"), and
    only then do the labels count in agreement, gold accuracy, export and `metaeval`. Strict: a
    JSON `true` is no score and `"3"` no 3."""

    model_config = ConfigDict(strict=True)

    issues: dict[str, bool] = Field(default_factory=dict)
    overall: Score | None = None
    user_humanlike: Score | None = None
    comment: str = Field(default="", max_length=MAX_COMMENT)
    done: bool = False

    @field_validator("issues")
    @classmethod
    def _known_issues(cls, issues: dict[str, bool]) -> dict[str, bool]:
        known = [label.key for label in load_issue_labels().issues]
        unknown = sorted(set(issues) - set(known))
        if unknown:
            raise ValueError(f"unknown issue {unknown[0]!r} (known: {', '.join(known)})")
        return issues

    @model_validator(mode="after")
    def _scored_when_done(self) -> LabelsIn:
        missing = [key for key in ("overall", USER_HUMANLIKE) if getattr(self, key) is None]
        if self.done and missing:
            raise ValueError(f"done needs every score: {' and '.join(missing)} not given")
        return self

    def annotation(self, annotator: Annotator, dialogue_id: str) -> Annotation:
        keys = [label.key for label in load_issue_labels().issues]
        issues = {
            key: self.issues.get(key, False) for key in keys if self.done or key in self.issues
        }
        labels: dict[str, JsonValue] = {"issues": dict(issues)}
        for key, score in (("overall", self.overall), (USER_HUMANLIKE, self.user_humanlike)):
            if score is not None:
                labels[key] = score
        return Annotation(
            annotator_id=annotator.name,
            target=Target(dialogue_id=dialogue_id),
            labels=labels,
            comment=self.comment or None,
            created_at=utc_now(),
            complete=self.done,
        )


def _score(value: JsonValue) -> int | None:
    return (
        value
        if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 5
        else None
    )


def labels_in(annotation: Annotation | None) -> LabelsIn:
    """What the page shows for a stored annotation (nothing ticked when there is none); labels
    imported from elsewhere show what fits the page's scales, and count as done as they were
    stored, scores or not (hence no validation here)."""
    if annotation is None:
        return LabelsIn()
    issues = annotation.labels.get("issues")
    known = {label.key for label in load_issue_labels().issues}
    return LabelsIn.model_construct(
        issues={k: True for k, v in issues.items() if v is True and k in known}
        if isinstance(issues, dict)
        else {},
        overall=_score(annotation.labels.get("overall")),
        user_humanlike=_score(annotation.labels.get(USER_HUMANLIKE)),
        comment=(annotation.comment or "")[:MAX_COMMENT],
        done=annotation.complete,
    )


def with_gold_scores(store: RunStore, team: Team, progress: list[Progress]) -> list[Progress]:
    """Each annotator's progress with how close their finished labels of the gold items are to
    the gold annotator's: the share of issues that agree, the mean |difference| of overall."""
    gold_annotator = team.settings.gold_annotator
    if gold_annotator is None:
        return progress
    finished: dict[str, dict[str, LabelsIn]] = defaultdict(dict)
    for dialogue_id in sorted(team.gold_items()):
        for annotation in store.records(Annotation, dialogue_id=dialogue_id):
            if (
                annotation.review_of is None
                and annotation.complete
                and annotation.target.kind == "dialogue"
            ):
                finished[annotation.annotator_id][dialogue_id] = labels_in(annotation)
    gold = finished[gold_annotator]
    scored = []
    for found in progress:
        mine = finished.get(found.annotator, {})
        if found.annotator == gold_annotator:
            scored.append(found)
            continue
        matches, checked, differences = 0, 0, []
        for dialogue_id, labels in mine.items():
            answer = gold[dialogue_id]
            for label in load_issue_labels().issues:
                checked += 1
                matches += labels.issues.get(label.key, False) == answer.issues.get(
                    label.key, False
                )
            if labels.overall is not None and answer.overall is not None:
                differences.append(abs(labels.overall - answer.overall))
        update = {
            "gold_items": len(mine),
            "gold_issue_accuracy": matches / checked if checked else None,
            "gold_overall_mean_abs_difference": (
                sum(differences) / len(differences) if differences else None
            ),
        }
        scored.append(found.model_copy(update=update))
    return scored


def agreement_rows(store: RunStore) -> list[HumanAgreementRow]:
    """Krippendorff's alpha and kappa between annotators, per dimension and language, from the
    meta-evaluation's own code, over finished labels; none until two annotators share an item."""
    from dialbench.metaeval.evaluate import meta_evaluate
    from dialbench.ratings import human_ratings

    ratings = human_ratings(store)
    return meta_evaluate(ratings, agreement_only=True).agreement if ratings else []


def _in_background(parent: int) -> None:
    """The agreement process yields the CPU to the server's (nice 10: a refresh is a second of
    a core, which the writes need more) and ends once the server's is gone: a server killed
    with SIGKILL cannot shut it down, and it would wait for work forever."""
    os.nice(10)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def _agreement_of(run_dir: Path) -> list[HumanAgreementRow]:
    """`agreement_rows` of a run, in the process that refreshes the organiser's table."""
    with RunStore.open(run_dir, create=False) as store:
        return agreement_rows(store)


class LiveAgreement:
    """The organiser page's agreement table, which under load would otherwise be recomputed
    from every label on every view. The first view computes it; after that no view waits for
    it: once the store changed (this connection's `data_version`) and the table is older than
    `refresh_seconds`, one background thread has the next computed while views show the last.
    It is computed in a process of its own: a second of pandas in the server's would hold the
    GIL, and every write waiting for it, that long."""

    def __init__(self, run_dir: Path, refresh_seconds: float = 10.0) -> None:
        self.run_dir = run_dir
        self.refresh_seconds = refresh_seconds
        self.refreshing: threading.Thread | None = None
        self._store: RunStore | None = None
        self._process: ProcessPoolExecutor | None = None
        self._computing = threading.Lock()
        self._starting = threading.Lock()
        self._rows: list[HumanAgreementRow] | None = None
        self._version = -1
        self._computed = 0.0

    @property
    def ready(self) -> bool:
        """Whether `rows` answers at once (the first table has been computed)."""
        return self._rows is not None

    def rows(self) -> list[HumanAgreementRow]:
        if self._rows is None:
            self._refresh(in_process=True)
        elif time.monotonic() - self._computed >= self.refresh_seconds:
            with self._starting:
                if self.refreshing is None or not self.refreshing.is_alive():
                    self.refreshing = threading.Thread(target=self._refresh, daemon=True)
                    self.refreshing.start()
        return self._rows or []

    def _refresh(self, in_process: bool = False) -> None:
        with self._computing:
            if self._store is None:
                self._store = RunStore.open(self.run_dir, create=False, any_thread=True)
            version = self._store.data_version()
            if self._rows is None or version != self._version:
                rows = agreement_rows(self._store) if in_process else self._computed_apart()
                if rows is None:
                    return
                self._rows, self._version = rows, version
            self._computed = time.monotonic()

    def _computed_apart(self) -> list[HumanAgreementRow] | None:
        """The table from the agreement process; None when that process was killed (the next
        refresh starts another)."""
        if self._process is None:
            spawn = multiprocessing.get_context("spawn")  # forking a threaded process is unsafe
            self._process = ProcessPoolExecutor(
                1, spawn, initializer=_in_background, initargs=(os.getpid(),)
            )
        try:
            return self._process.submit(_agreement_of, self.run_dir).result()
        except BrokenProcessPool:
            self._process = None
            return None

    def warm_up(self) -> None:
        """Import the statistics stack (pandas, scipy: seconds) in the background at start, so
        the organiser's first view does not wait for it."""
        threading.Thread(target=importlib.import_module, args=(STATISTICS,), daemon=True).start()

    def close(self) -> None:
        with self._computing:
            if self._store is not None:
                self._store.close()
                self._store = None
            if self._process is not None:
                self._process.shutdown(cancel_futures=True)
                self._process = None
