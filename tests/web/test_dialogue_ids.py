"""Dialogue ids as `dialbench import` takes them, whatever they hold (`/`, `..`, `?`, `#`, `%`,
spaces): every page and write reaches them, encoded as one path segment. Only `.` and `..`
(which a browser resolves away) are refused, at import."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import quote

from test_app import csrf_of, stored
from web_run import ORGANISER_TOKEN, Client, WebRun

from dialbench.schema import Benchmark, BenchmarkItem, Dialogue
from dialbench.store import RunStore
from dialbench.web.annotators import add_annotator
from dialbench.web.auth import CSRF_HEADER
from tests.conftest import RunCli

ODD_IDS = ("a/b/../zh", "50% off?#top&x=1", "trailing/", "/leading", " spaced out ", "日本/語")
COMPLETE = {"issues": {"unsafe": True}, "overall": 3, "user_humanlike": 4, "done": True}


def import_dialogues(cli: RunCli, run: Path, ids: tuple[str, ...], ok: bool = True) -> str:
    """`dialbench import` of one short English dialogue per id; its stderr."""
    source = run.parent / "odd.jsonl"
    source.write_text(
        "".join(
            json.dumps(
                {
                    "id": dialogue_id,
                    "language": "en",
                    "turns": [
                        {"role": "user", "text": f"hi from {dialogue_id}"},
                        {"role": "assistant", "text": "hello"},
                    ],
                }
            )
            + "\n"
            for dialogue_id in ids
        ),
        encoding="utf-8",
    )
    return cli("import", source, "--run", run, ok=ok).stderr


def benchmark_for(run: Path, name: str, annotator: str, dialogue_ids: Iterable[str]) -> str:
    """A benchmark of English dialogues and its one annotator; the annotator's token."""
    items = [BenchmarkItem(dialogue_id=d, language="en", reason="test") for d in dialogue_ids]
    with RunStore.open(run, create=False) as store:
        with store.invocation("test setup") as setup:
            store.add([Benchmark(name=name, items=items)], setup)
        return add_annotator(store, annotator, name, ["en"]).token


def segment(dialogue_id: str) -> str:
    return quote(dialogue_id, safe="")


def test_any_imported_id_works_in_every_route(cli: RunCli, web_run: WebRun, client: Client) -> None:
    import_dialogues(cli, web_run.path, ODD_IDS)
    dana = client(benchmark_for(web_run.path, "odd", "dana", ODD_IDS))
    listing = dana.get("/annotate").text
    assert f'id="resume" href="/annotate/{segment(ODD_IDS[0])}"' in listing
    for n, dialogue_id in enumerate(ODD_IDS):
        assert f'href="/annotate/{segment(dialogue_id)}"' in listing
        page = dana.get(f"/annotate/{segment(dialogue_id)}")
        assert page.status_code == 200, page.text
        assert f"hi from {dialogue_id}" in page.text.replace("&#39;", "'").replace("&amp;", "&")
        if n + 1 < len(ODD_IDS):
            assert f'id="next" href="/annotate/{segment(ODD_IDS[n + 1])}"' in page.text
        saved = dana.put(
            f"/api/labels/{segment(dialogue_id)}",
            json=COMPLETE,
            headers={CSRF_HEADER: csrf_of(page.text)},
        )
        assert saved.status_code == 200, saved.text
        assert saved.json()["done"] == n + 1
    assert "All done" in dana.get("/annotate").text
    assert {a.target.dialogue_id for a in stored(web_run)} == set(ODD_IDS)
    organiser = client(ORGANISER_TOKEN)
    every = organiser.get("/dialogues", params={"benchmark": "odd"}).text
    for dialogue_id in ODD_IDS:
        assert f'href="/dialogues/{segment(dialogue_id)}"' in every
        shown = organiser.get(f"/dialogues/{segment(dialogue_id)}")
        assert shown.status_code == 200
        assert "<h3>dana</h3>" in shown.text


def test_dot_ids_are_refused_at_import(cli: RunCli, web_run: WebRun) -> None:
    refused = import_dialogues(cli, web_run.path, ("ok", "..", "."), ok=False)
    assert "'..' is no dialogue id: no URL can name it" in refused
    assert "'.' is no dialogue id" in refused
    with RunStore.open(web_run.path, create=False) as store:
        assert store.get(Dialogue, "ok") is None  # all of a file or none of it
