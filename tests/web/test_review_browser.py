"""Reviewing a judge as a reviewer does: `dialbench serve RUN --review issues --review-judge
judge-x` started as a user starts it, one dialogue's verdicts answered by keyboard (and one by
mouse) in headless Chromium, and the annotations the store then holds."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial

import pytest
from chromium import open_link, press_and_save
from playwright.sync_api import Browser, expect
from serve_process import Serving, serve
from web_run import WebRun, make_web_run

from dialbench.schema import Annotation, Judgment
from dialbench.store import RunStore
from tests.judge.scripted import ISSUE_KEYS

pytestmark = pytest.mark.slow
expect.set_options(timeout=30_000)


@dataclass
class Served:
    run: WebRun
    serving: Serving


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    run = make_web_run(tmp_path_factory.mktemp("web") / "run")
    with serve(run.path, "--review", "issues", "--review-judge", "judge-x") as serving:
        yield Served(run, serving)


def stored_reviews(served: Served) -> dict[str, Annotation]:
    """The reviews in the store, by the dialogue they review."""
    with RunStore.open(served.run.path, create=False) as store:
        return {a.target.dialogue_id: a for a in store.records(Annotation) if a.review_of}


def test_review_a_dialogue_by_keyboard_and_find_it_stored(served: Served, browser: Browser) -> None:
    base = served.serving.base
    alice = open_link(browser, f"{base}/enter?token={served.run.tokens['alice']}")
    expect(alice).to_have_url(f"{base}/review")
    expect(alice.locator("#reviewing")).to_contain_text("judge-x")
    alice.click("#resume")
    first, second = served.run.ids("en")[:2]
    expect(alice).to_have_url(f"{base}/review/{first}")
    alice.wait_for_load_state()  # the page's script listens for keys once it has loaded
    verdicts = alice.locator(".review-verdict")
    expect(verdicts).to_have_count(len(ISSUE_KEYS) + 1)
    expect(alice.locator("#unreviewed")).to_have_text("9 of 9 verdict(s) not reviewed yet")
    review = partial(press_and_save, alice, endpoint="/api/reviews/")
    review("a")  # uninterpretable: agreed (no)
    review("d")  # unsafe: disagreed (yes)
    expect(alice.locator("#status")).to_have_text("saved, not done yet")  # its answer shown
    alice.keyboard.press("Enter")  # not yet: seven verdicts unanswered
    expect(alice.locator("#status")).to_have_text("not done yet: 7 verdict(s) not reviewed")
    expect(verdicts.nth(2)).to_have_class("review-verdict field current")
    for _ in range(5):  # lacks_empathy ... irrelevant: agreed
        review("a")
    review("s")  # non_factual: skipped
    review("2")  # overall: the judge's 4 corrected to 2
    expect(alice.locator("#unreviewed")).to_have_text("every verdict reviewed")
    alice.keyboard.press("k")
    review("a")  # non_factual after all: agreed
    expect(verdicts.nth(1).locator(".review-state")).to_have_text("disagreed: yes")
    expect(verdicts.nth(8).locator(".review-state")).to_have_text("corrected: 2")
    alice.keyboard.press("Enter")  # done, and on to the next dialogue
    expect(alice).to_have_url(f"{base}/review/{second}")
    expect(alice.locator("#done")).to_have_text("1")

    alice.wait_for_load_state()
    with alice.expect_response(lambda r: "/api/reviews/" in r.url):
        alice.locator(".review-verdict").nth(2).locator("button[data-do=agree]").click()
    expect(alice.locator("#started")).to_have_text("1")

    reviews = stored_reviews(served)
    with RunStore.open(served.run.path, create=False) as store:
        judged = {
            j.target.dialogue_id: j.id
            for j in store.records(Judgment, protocol="issues")
            if j.judge_model == "judge-x"
        }
    done, started = reviews[first], reviews[second]
    assert done.annotator_id == "alice"
    assert done.review_of == judged[first]
    assert done.complete
    assert done.labels == {
        "issues": {key: key == "unsafe" for key in ISSUE_KEYS},
        "overall": 2,
    }
    assert started.review_of == judged[second]
    assert not started.complete
    assert started.labels == {"issues": {"lacks_empathy": True}}  # bot-b's: the judge's flag

    alice.keyboard.press("p")  # back: the page shows the answers stored
    expect(alice).to_have_url(f"{base}/review/{first}")
    expect(alice.locator("#status")).to_have_text("done")
    expect(verdicts.nth(7).locator(".review-state")).to_have_text("agreed")
    expect(verdicts.nth(8).locator(".review-state")).to_have_text("corrected: 2")

    organiser = open_link(browser, served.serving.organiser_link)
    english = organiser.locator("#review-languages tr", has_text="en")
    expect(english.locator("td").nth(1)).to_have_text("1")  # targets reviewed
    expect(english.locator("td").nth(5)).to_have_text("0.78")  # 7 of 9 verdicts agreed with
