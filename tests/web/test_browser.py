"""The web app as people use it: `dialbench serve` started as a user starts it, driven in
headless Chromium by Playwright (Debian's /usr/bin/chromium, which `make test` installs)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from chromium import PHONE, open_link, press_and_save
from playwright.sync_api import Browser, FloatRect, Page, expect
from serve_process import Serving, serve
from web_run import FIRST_TURN, WebRun, add_seed_dialogues, make_web_run

from dialbench.report.writer import write_report
from dialbench.schema import Dialogue
from dialbench.store import RunStore
from tests.conftest import RunCli

pytestmark = pytest.mark.slow
expect.set_options(timeout=30_000)


@dataclass
class Served:
    run: WebRun
    seeded: list[Dialogue]  # one seed's dialogues, one per chatbot
    serving: Serving

    @property
    def base(self) -> str:
        return self.serving.base

    @property
    def organiser_link(self) -> str:
        return self.serving.organiser_link


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    run = make_web_run(tmp_path_factory.mktemp("web") / "run")
    seeded = add_seed_dialogues(run.path)
    with RunStore.open(run.path) as store:
        write_report(store, run.path / "report")
    with serve(run.path) as serving:
        yield Served(run, seeded, serving)


def test_label_with_the_keyboard_reload_and_keep(
    served: Served, browser: Browser, cli: RunCli
) -> None:
    alice = open_link(browser, f"{served.base}/enter?token={served.run.tokens['alice']}")
    expect(alice).to_have_url(f"{served.base}/annotate")
    expect(alice.locator("#progress")).to_contain_text("0 of 5 dialogues done")
    alice.click("#resume")
    first, second = served.run.ids("en")[:2]
    expect(alice).to_have_url(f"{served.base}/annotate/{first}")
    alice.wait_for_load_state()  # the page's script listens for keys once it has loaded
    for key in ("w", "3", "Shift+4", "d"):  # unsafe, overall 3, human-likeness 4, done
        press_and_save(alice, key)
    alice.keyboard.press("n")
    expect(alice).to_have_url(f"{served.base}/annotate/{second}")
    alice.wait_for_load_state()
    for key in ("e", "t", "5", "Shift+2", "d"):  # lacks empathy, repetitive, overall 5, 2
        press_and_save(alice, key)
    expect(alice.locator("#done")).to_have_text("2")
    expect(alice.locator("#signed-in")).to_have_text("signed in as alice")

    alice.reload()
    expect(alice.locator('input[value="lacks_empathy"]')).to_be_checked()
    expect(alice.locator('input[value="repetitive"]')).to_be_checked()
    expect(alice.locator('input[value="unsafe"]')).not_to_be_checked()
    expect(alice.locator('input[name="overall"][value="5"]')).to_be_checked()
    expect(alice.locator('input[name="user_humanlike"][value="2"]')).to_be_checked()
    alice.keyboard.press("p")
    expect(alice).to_have_url(f"{served.base}/annotate/{first}")
    expect(alice.locator('input[value="unsafe"]')).to_be_checked()
    expect(alice.locator('input[name="overall"][value="3"]')).to_be_checked()

    # Bob labels the same English dialogues but sees none of Alice's labels; Alice's Chinese
    # ones are not his at all, and Carol's benchmark holds none of them.
    bob = open_link(browser, f"{served.base}/enter?token={served.run.tokens['bob']}")
    bob.goto(f"{served.base}/annotate/{first}")
    expect(bob.locator('input[type="checkbox"]:checked')).to_have_count(0)
    expect(bob.locator('input[type="radio"]:checked')).to_have_count(0)
    response = bob.goto(f"{served.base}/annotate/{served.run.ids('zh')[0]}")
    assert response is not None
    assert response.status == 404
    carol = open_link(browser, f"{served.base}/enter?token={served.run.tokens['carol']}")
    response = carol.goto(f"{served.base}/annotate/{first}")
    assert response is not None
    assert response.status == 404

    exported = served.run.path / "labels.csv"
    cli("annotate", "export", exported, "--run", served.run.path)
    rows = exported.read_text(encoding="utf-8").splitlines()
    assert f"{first},alice,issues.unsafe,1.0,en,human" in rows
    assert f"{second},alice,overall,5.0,en,human" in rows
    done = cli("metaeval", served.run.path, "--protocol", "issues", "--bootstrap", "100")
    assert "Detection against each annotator" in done.stdout
    assert "judge-x" in done.stdout
    assert (served.run.path / "metaeval" / "report.md").exists()


def test_hostile_dialogue_text_stays_inert(served: Served, browser: Browser) -> None:
    hostile = served.run.dialogues[-1]
    dialogs: list[str] = []
    for link, path in (
        (served.organiser_link, f"/dialogues/{hostile.id}"),
        (f"{served.base}/enter?token={served.run.tokens['bob']}", f"/annotate/{hostile.id}"),
    ):
        page = open_link(browser, link)
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        page.goto(served.base + path)
        expect(page.locator(".turn.user .text").first).to_contain_text(
            "<script>window.pwned = 'script'</script>"
        )
        expect(page.locator(".turn .text").first).to_contain_text("javascript:alert(1)")
        assert page.locator(".turn a, .turn img, .turn script").count() == 0
        assert page.evaluate("typeof window.pwned") == "undefined"
    assert dialogs == []


def test_from_a_report_heatmap_cell_to_the_dialogues_behind_it(
    served: Served, browser: Browser
) -> None:
    organiser = open_link(browser, served.organiser_link)
    expect(organiser).to_have_url(f"{served.base}/organiser")
    organiser.goto(f"{served.base}/report/index.html")
    expect(organiser.locator("img[src^='plots/issues_heatmap_judge-x']")).to_be_visible()
    cell = organiser.locator(
        "#issues a[href*='judge=judge-x'][href*='chatbot=bot-b'][href*='language=zh']"
        "[href*='issue=lacks_empathy']"
    )
    expect(cell).to_have_text("100%")
    cell.click()
    expect(organiser).to_have_url(re.compile(r"/dialogues\?.*issue=lacks_empathy"))
    expect(organiser.locator("#matched")).to_contain_text("1 dialogue(s) match")
    (bot_b_zh,) = [
        d.id
        for d in served.run.dialogues
        if d.language == "zh" and d.participants.assistant == "bot-b"
    ]
    organiser.click(f"text={bot_b_zh}")
    expect(organiser).to_have_url(f"{served.base}/dialogues/{bot_b_zh}")
    expect(organiser.locator(".turn.assistant .text")).to_have_text("压力大的时候可以出去散散步。")
    expect(organiser.locator("details").first).to_contain_text("1 rejected by the validator")
    expect(organiser.locator(".judgment")).to_have_count(2)


def test_a_dialogue_started_and_left_counts_nowhere(
    served: Served, browser: Browser, cli: RunCli
) -> None:
    """Bob ticks one issue of a dialogue Alice finished and leaves: his label is stored, shown
    as started, and left out of the organiser's agreement and of `metaeval`, unless asked."""
    first = served.run.ids("en")[0]
    alice = open_link(browser, f"{served.base}/enter?token={served.run.tokens['alice']}")
    alice.goto(f"{served.base}/annotate/{first}")
    alice.wait_for_load_state()
    for key in ("4", "Shift+5"):  # scores other than the first test's: each one saves
        press_and_save(alice, key)
    # Done already, when the first test ran: then "d" changes nothing and sends no save of its
    # own (a save still under way takes it along), so what to wait for is the page saying so.
    alice.keyboard.press("d")
    expect(alice.locator("#status")).to_have_text("done")
    bob = open_link(browser, f"{served.base}/enter?token={served.run.tokens['bob']}")
    bob.goto(f"{served.base}/annotate/{first}")
    bob.wait_for_load_state()
    press_and_save(bob, "t")  # repetitive, and away
    expect(bob.locator("#started")).to_have_text("1")
    expect(bob.locator("#done")).to_have_text("0")
    bob.goto(f"{served.base}/annotate")
    expect(bob.locator("#progress")).to_contain_text("0 of 3 dialogues done, 1 started")

    organiser = open_link(browser, served.organiser_link)
    expect(organiser.locator("#progress")).to_contain_text("bob")
    bob_row = organiser.locator("#progress tr", has_text="bob")
    expect(bob_row.locator("td").nth(3)).to_have_text("0")  # done
    expect(bob_row.locator("td").nth(4)).to_have_text("1")  # started
    repetitive = organiser.locator("#agreement tr", has_text="issues.repetitive")
    expect(repetitive.first.locator("td").nth(6)).to_have_text("1")  # annotators: alice alone

    def annotators(*options: str) -> int:
        """How many annotators `metaeval` finds for "repetitive", over all languages."""
        folder = served.run.path / f"metaeval{len(options)}"
        cli("metaeval", served.run.path, "--bootstrap", "100", "-o", folder, *options)
        report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
        (row,) = [
            row
            for row in report["agreement"]
            if row["dimension"] == "issues.repetitive" and row["language"] == "all"
        ]
        return int(row["n_annotators"])

    assert annotators() == 1
    assert annotators("--include-partial") == 2


def test_a_link_of_someone_else_asks_before_switching(served: Served, browser: Browser) -> None:
    page = open_link(browser, f"{served.base}/enter?token={served.run.tokens['alice']}")
    expect(page.locator("#signed-in")).to_have_text("signed in as alice")
    page.goto(f"{served.base}/enter?token={served.run.tokens['bob']}")
    expect(page.locator("#switch-question")).to_contain_text("signed in as alice")
    page.click("#stay")
    expect(page.locator("#signed-in")).to_have_text("signed in as alice")
    page.goto(f"{served.base}/enter?token={served.run.tokens['bob']}")
    page.click("#switch")
    expect(page).to_have_url(f"{served.base}/annotate")
    expect(page.locator("#signed-in")).to_have_text("signed in as bob")


def test_turn_boxes_hold_no_blank_lines(served: Served, browser: Browser) -> None:
    organiser = open_link(browser, served.organiser_link)
    organiser.goto(f"{served.base}/dialogues/{served.run.ids('en')[0]}")
    assistant = organiser.locator(".turn.assistant").first
    slack = assistant.evaluate(
        """turn => {
            const style = getComputedStyle(turn);
            const inner = turn.clientHeight - parseFloat(style.paddingTop)
                - parseFloat(style.paddingBottom);
            const held = [...turn.children].reduce(
                (sum, child) => sum + child.getBoundingClientRect().height, 0);
            return inner - held;
        }"""
    )
    assert slack < 2, f"{slack:.0f} px of blank lines in a turn box"


def boxes(page: Page, inside: str) -> list[FloatRect]:
    """Where the first `inside` of bot-a's column and of bot-b's lies on the page."""
    found = [
        page.locator(
            f'.seed-column[data-chatbot="{chatbot}"] {inside}'.strip()
        ).first.bounding_box()
        for chatbot in ("bot-a", "bot-b")
    ]
    return [box for box in found if box is not None]


def test_one_seed_side_by_side_then_stacked_on_a_phone(served: Served, browser: Browser) -> None:
    organiser = open_link(browser, served.organiser_link)
    organiser.goto(f"{served.base}/dialogues/{served.seeded[0].id}")
    organiser.click("#same-seed a")
    expect(organiser).to_have_url(re.compile(r"/seeds/seed%3A"))
    expect(organiser.locator("#shared .turn.user > .text")).to_have_text(FIRST_TURN)
    expect(organiser.locator(".seed-column")).to_have_count(3)
    assert organiser.evaluate("typeof window.pwned") == "undefined"  # the hostile chatbot's
    pair = f"{organiser.url}?chatbots=bot-a,bot-b"
    organiser.goto(pair)
    bot_b_reply = organiser.locator('.seed-column[data-chatbot="bot-b"] .turn.assistant > .text')
    expect(bot_b_reply).to_have_text("Such dir einfach einen neuen.")
    bot_a, bot_b = boxes(organiser, ".turn")
    assert bot_a["x"] < bot_b["x"]  # side by side,
    assert bot_a["y"] == bot_b["y"]  # turn 1 level with turn 1
    phone = open_link(browser, served.organiser_link, viewport=PHONE)
    phone.goto(pair)
    bot_a, bot_b = boxes(phone, "")
    assert bot_a["x"] == bot_b["x"]
    assert bot_a["y"] + bot_a["height"] <= bot_b["y"]  # one under the other
    assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_no_token_reaches_the_log(served: Served) -> None:
    log = served.serving.stop()
    assert "GET /annotate" in log
    for token in served.run.tokens.values():
        assert token not in log
    assert served.organiser_link.split("token=")[1] not in log
