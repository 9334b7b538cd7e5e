"""Simulated annotators saving labels as fast as the server answers, for the no-lost-write test
and `benchmarks/web_annotation.py`: each one opens its secret link, then PUTs labels in a loop,
each with a new sequence number in the comment, and remembers which writes were acknowledged.
With the organiser's link, an organiser keeps reloading `/organiser` meanwhile."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from dialbench.schema import Annotation, Benchmark, BenchmarkItem, Dialogue, Turn
from dialbench.store import RunStore
from dialbench.web.annotators import add_annotator
from dialbench.web.auth import CSRF_HEADER

LANGUAGES = ("en", "zh", "de", "fr", "pt", "es")
CSRF_META = '<meta name="csrf-token" content="'


@dataclass
class LoadRun:
    path: Path
    dialogues: list[str]
    tokens: dict[str, str]


def make_load_run(path: Path, annotators: int, dialogues: int) -> LoadRun:
    """One benchmark of `dialogues` dialogues in six languages; every annotator speaks all six."""
    made = [
        Dialogue(
            language=LANGUAGES[n % len(LANGUAGES)],
            turns=[Turn(role="user", text=f"hello {n}"), Turn(role="assistant", text=f"hi {n}")],
        )
        for n in range(dialogues)
    ]
    items = [BenchmarkItem(dialogue_id=d.id, language=d.language, reason="load") for d in made]
    with RunStore.open(path) as store:
        with store.invocation("load setup") as run:
            store.add([*made, Benchmark(name="load", items=items)], run)
        tokens = {
            f"annotator{n:02d}": add_annotator(
                store, f"annotator{n:02d}", "load", list(LANGUAGES)
            ).token
            for n in range(annotators)
        }
    return LoadRun(path, [d.id for d in made], tokens)


@dataclass
class LoadResult:
    seconds: float
    latencies: list[float] = field(default_factory=list)
    failures: list[tuple[float, str]] = field(default_factory=list)  # (monotonic time, what)
    acknowledged: dict[tuple[str, str], int] = field(default_factory=dict)
    organiser_latencies: list[float] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def writes(self) -> int:
        return len(self.latencies)

    def p99_ms(self) -> float:
        ordered = sorted(self.latencies)
        return 1000 * ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]


def _annotate(
    base: str, name: str, token: str, dialogues: list[str], until: float, result: LoadResult
) -> None:
    with httpx.Client(base_url=base, timeout=60) as client:
        client.get("/enter", params={"token": token})
        page = client.get(f"/annotate/{dialogues[0]}").text
        start = page.index(CSRF_META) + len(CSRF_META)
        csrf = page[start : page.index('"', start)]
        sequence = 0
        while time.monotonic() < until:
            dialogue = dialogues[sequence % len(dialogues)]
            labels = {
                "issues": {"repetitive": sequence % 2 == 0},
                "overall": 1 + sequence % 5,
                "user_humanlike": 1 + (sequence + 2) % 5,
                "comment": f"{name} #{sequence}",
                "done": sequence % 4 != 0,
            }
            sent = time.perf_counter()
            try:
                answer = client.put(
                    f"/api/labels/{dialogue}", json=labels, headers={CSRF_HEADER: csrf}
                )
                ok = answer.status_code == 200
                problem = f"{answer.status_code} {answer.text[:200]}"
            except httpx.HTTPError as error:
                ok, problem = False, repr(error)
            elapsed = time.perf_counter() - sent
            with result.lock:
                if ok:
                    result.latencies.append(elapsed)
                    result.acknowledged[(name, dialogue)] = sequence
                else:
                    result.failures.append((time.monotonic(), problem))
            sequence += 1


def _view(client: httpx.Client, result: LoadResult) -> float:
    """One load of the organiser's page; its time, also kept in `result` (a failure there)."""
    sent = time.perf_counter()
    try:
        answer = client.get("/organiser")
        problem = None if answer.status_code == 200 else f"{answer.status_code}"
    except httpx.HTTPError as error:  # the kill test's server is gone
        problem = repr(error)
    elapsed = time.perf_counter() - sent
    with result.lock:
        if problem is None:
            result.organiser_latencies.append(elapsed)
        else:
            result.failures.append((time.monotonic(), f"organiser {problem}"))
    return elapsed


def _watch(client: httpx.Client, every: float, until: float, result: LoadResult) -> None:
    """The organiser's page loaded again `every` seconds after the last load began (at once when
    it took longer; the page itself reloads every 30 s)."""
    while time.monotonic() < until:
        time.sleep(max(0.0, every - _view(client, result)))


def drive(
    base: str,
    load: LoadRun,
    seconds: float,
    organiser_link: str | None = None,
    organiser_every: float = 0.0,
) -> LoadResult:
    """Every annotator writing at once for `seconds`; given the organiser's link, the organiser
    opens their page first (as one does after `dialbench serve` prints the link, before sending
    the annotators theirs), then it reloads every `organiser_every` seconds meanwhile. The
    result holds each acknowledged write, and the organiser's first view first."""
    result = LoadResult(seconds=seconds)
    with httpx.Client(base_url=base, timeout=120) as organiser:
        if organiser_link is not None:
            organiser.get(organiser_link)
            _view(organiser, result)
        until = time.monotonic() + seconds
        threads = [
            threading.Thread(
                target=_annotate, args=(base, name, token, load.dialogues, until, result)
            )
            for name, token in load.tokens.items()
        ]
        if organiser_link is not None:
            threads.append(
                threading.Thread(target=_watch, args=(organiser, organiser_every, until, result))
            )
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    return result


def lost_writes(load: LoadRun, result: LoadResult) -> list[str]:
    """Acknowledged writes the store does not hold (a later write of the same label may have
    replaced one: that is not a loss)."""
    with RunStore.open(load.path, create=False) as store:
        stored = {
            (a.annotator_id, a.target.dialogue_id): int((a.comment or "#-1").rsplit("#", 1)[1])
            for a in store.records(Annotation)
        }
    return [
        f"{name} on {dialogue}: acknowledged #{sequence}, stored #{stored.get((name, dialogue))}"
        for (name, dialogue), sequence in result.acknowledged.items()
        if stored.get((name, dialogue), -1) < sequence
    ]
