"""The annotate page in headless Chromium as annotators meet it: a save that fails (the server
restarted) is seen at once, holds the page and is saved after; a phone's screen and touch; any
dialogue id; a 1 MB turn."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from chromium import DESKTOP, PHONE, TOUCH, open_link, press_and_save
from playwright.sync_api import Browser, Locator, Page, expect
from screenshots import annotate_screenshots
from serve_process import Serving, serve
from test_dialogue_ids import ODD_IDS, benchmark_for, segment
from web_run import WebRun, make_web_run

from dialbench.schema import Annotation, Dialogue, Turn
from dialbench.store import RunStore
from dialbench.web.server import free_port

pytestmark = pytest.mark.slow
expect.set_options(timeout=30_000)
# No space to break at and an emoji every 52 characters: before turns were cut, Chromium took a
# minute to lay this out at phone width.
HUGE = ("a" * 50 + "é😀") * 20_000


@dataclass
class Served:
    run: WebRun
    serving: Serving
    tokens: dict[str, str]  # dana labels the odd ids, hugo the huge dialogue

    def link(self, name: str) -> str:
        return f"{self.serving.base}/enter?token={self.tokens[name]}"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    run = make_web_run(tmp_path_factory.mktemp("web") / "run")
    huge = Dialogue(
        language="en", turns=[Turn(role="user", text=HUGE), Turn(role="assistant", text="ok")]
    )
    odd = [
        Dialogue(id=d, language="en", turns=[Turn(role="user", text=f"hi from {d}")])
        for d in ODD_IDS
    ]
    with RunStore.open(run.path) as store, store.invocation("test setup") as setup:
        store.add([huge, *odd], setup)
    tokens = {
        **run.tokens,
        "dana": benchmark_for(run.path, "odd", "dana", ODD_IDS),
        "hugo": benchmark_for(run.path, "huge", "hugo", [huge.id]),
    }
    with serve(run.path) as serving:
        yield Served(run, serving, tokens)


def stored_labels(run: Path, annotator: str, dialogue_id: str) -> dict[str, object] | None:
    with RunStore.open(run, create=False) as store:
        found = [
            a
            for a in store.records(Annotation, annotator_id=annotator)
            if a.target.dialogue_id == dialogue_id
        ]
    return found[0].labels if found else None


def field_of(page: Page, selector: str) -> Locator:
    return page.locator(".field", has=page.locator(selector))


def test_a_failed_save_is_seen_at_once_and_saved_after_a_restart(
    tmp_path: Path, browser: Browser
) -> None:
    run = make_web_run(tmp_path / "run")
    first, second = run.ids("en")[:2]
    port = free_port()
    with serve(run.path, port=port) as before:
        alice = open_link(browser, f"{before.base}/enter?token={run.tokens['alice']}")
        alice.goto(f"{before.base}/annotate/{first}")
        alice.wait_for_load_state()
        before.stop()
    alice.keyboard.press("w")  # unsafe, while the server is down
    banner, unsafe = alice.locator("#unsaved"), field_of(alice, 'input[value="unsafe"]')
    expect(banner).to_be_in_viewport()
    expect(banner).to_contain_text("Not saved: the server cannot be reached")
    expect(unsafe).to_have_attribute("data-save", "unsaved")  # "not saved" beside the box
    expect(alice.locator('input[value="unsafe"]')).to_be_checked()
    alice.keyboard.press("n")
    expect(banner).to_contain_text("This page stays until the change is saved or discarded")
    assert alice.url.endswith(f"/annotate/{first}")

    with serve(run.path, port=port) as after:  # a new process: the page's CSRF token is stale
        expect(banner).to_be_hidden(timeout=60_000)  # retried on its own
        expect(unsafe).not_to_have_attribute("data-save", re.compile(".*"))
        expect(alice.locator("#status")).to_have_text(re.compile("^saved"))
        labels = stored_labels(run.path, "alice", first)
        assert labels is not None
        assert labels["issues"]["unsafe"] is True  # type: ignore[index]
        press_and_save(alice, "3")
        alice.keyboard.press("n")
        expect(alice).to_have_url(f"{after.base}/annotate/{second}")
        log = after.stop()
    assert "GET /api/csrf 200" in log


def test_a_refused_save_holds_the_page_until_discarded(served: Served, browser: Browser) -> None:
    bob = open_link(browser, served.link("bob"))
    first, second = served.run.ids("en")[:2]
    refusal = '{"detail": "overall: refused by this test"}'
    # Routed before the page loads: a route added to a page already loaded let one save through
    # once in a run of the whole suite, the request sent before the route took hold.
    bob.route(
        "**/api/labels/**",
        lambda route: route.fulfill(status=422, body=refusal, content_type="application/json"),
    )
    bob.goto(f"{served.serving.base}/annotate/{first}")
    bob.wait_for_load_state()
    bob.keyboard.press("4")
    banner = bob.locator("#unsaved")
    expect(banner).to_contain_text("overall: refused by this test. Retry, or discard the change.")
    expect(field_of(bob, 'input[name="overall"]')).to_have_attribute("data-save", "unsaved")
    bob.click("#next")
    expect(banner).to_contain_text("This page stays")
    assert bob.url.endswith(f"/annotate/{first}")
    bob.unroute("**/api/labels/**")
    bob.click("#discard")
    expect(banner).to_be_hidden()
    expect(bob.locator('input[name="overall"]:checked')).to_have_count(0)  # as stored: nothing
    expect(bob.locator("#status")).to_contain_text("change discarded")
    bob.keyboard.press("n")
    expect(bob).to_have_url(f"{served.serving.base}/annotate/{second}")
    assert stored_labels(served.run.path, "bob", first) is None


def test_a_phone_labels_by_touch_in_one_column(
    served: Served, browser: Browser, tmp_path: Path
) -> None:
    alice = open_link(browser, served.link("alice"), **TOUCH)
    assert alice.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]  # the list
    alice.tap("#resume")
    first = served.run.ids("en")[0]
    expect(alice).to_have_url(f"{served.serving.base}/annotate/{first}")
    alice.wait_for_load_state()
    assert alice.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    turns, form = alice.locator("#turns").bounding_box(), alice.locator("#labels").bounding_box()
    assert turns is not None
    assert form is not None
    assert form["y"] >= turns["y"] + turns["height"]  # one column: the labels below the turns
    box = alice.locator('input[value="unsafe"]').bounding_box()
    label = field_of(alice, 'input[value="unsafe"]').bounding_box()
    assert box is not None
    assert label is not None
    assert min(box["width"], box["height"]) >= 24
    assert label["height"] >= 44
    for target in ('input[value="unsafe"]', '#overall label:has-text("4")'):
        with alice.expect_response(lambda r: "/api/labels/" in r.url) as saved:
            alice.tap(target)
        assert saved.value.status == 200
    press_and_save(alice, "Shift+2")  # a phone with a keyboard
    labels = stored_labels(served.run.path, "alice", first)
    assert labels is not None
    assert labels["overall"] == 4
    assert labels["user_humanlike"] == 2
    link = served.link("alice")
    shots = annotate_screenshots(browser, link, alice.url, tmp_path)  # the test's artefacts
    assert [path.stat().st_size > 10_000 for path in shots] == [True, True]


def test_any_dialogue_id_from_continue_to_all_done(served: Served, browser: Browser) -> None:
    dana = open_link(browser, served.link("dana"))
    dana.click("#resume")
    for n, dialogue_id in enumerate(ODD_IDS):
        expect(dana).to_have_url(f"{served.serving.base}/annotate/{segment(dialogue_id)}")
        expect(dana.locator(".turn .text")).to_have_text(f"hi from {dialogue_id}")
        dana.wait_for_load_state()
        for key in ("w", "3", "Shift+4", "d"):  # d: done
            press_and_save(dana, key)
        expect(dana.locator("#done")).to_have_text(str(n + 1))
        dana.keyboard.press("n")
    dana.click("nav >> text=My dialogues")
    expect(dana.locator("body")).to_contain_text("All done")


@pytest.mark.parametrize(
    "device", [{"viewport": PHONE}, {"viewport": DESKTOP}], ids=["narrow", "desktop"]
)
def test_a_1mb_turn_renders_at_once_and_shows_all_on_request(
    served: Served, browser: Browser, device: dict[str, object]
) -> None:
    hugo = open_link(browser, served.link("hugo"), **device)
    started = time.monotonic()
    hugo.click("#resume")
    hugo.wait_for_load_state()
    hugo.evaluate("document.body.offsetHeight")  # the layout that showing the page needs
    press_and_save(hugo, "w")  # a toggle: saves on either device
    took = time.monotonic() - started
    assert took < 10, f"{took:.1f} s to open the page and save a key"  # 62 s uncut, at 390 px
    long = hugo.locator("details.long")
    expect(long.locator(".more")).to_have_text(f"show all {len(HUGE):,} characters")
    expect(long.locator(".preview")).to_be_visible()
    if device.get("viewport") == DESKTOP:
        long.locator("summary").click()
        expect(long).to_have_attribute("open", "")
        expect(long.locator(".preview")).to_be_hidden()
        assert hugo.evaluate("document.querySelector('details.long').textContent.length") > len(
            HUGE
        )
