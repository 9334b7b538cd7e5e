"""Headless Chromium for the browser tests and the docs' screenshots: Debian's
/usr/bin/chromium (which `make test` installs) driven by Playwright."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, sync_playwright

CHROMIUM = Path("/usr/bin/chromium")
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}  # an iPhone 12-15's CSS pixels
TOUCH = {"viewport": PHONE, "device_scale_factor": 3, "is_mobile": True, "has_touch": True}


@contextmanager
def chromium() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        raise RuntimeError(
            f"{CHROMIUM} is missing: `make test` installs it (apt-get install chromium)"
        )
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"]
        )
        yield launched
        launched.close()


def open_link(browser: Browser, link: str, **options: Any) -> Page:
    """A fresh browser profile (Playwright's context `options`: viewport, touch) that opened a
    secret link. Waits are long: the test machine's two cores are shared, and a wait that runs
    out fails the test, however correct the app."""
    context = browser.new_context(**options)
    context.set_default_timeout(60_000)
    page = context.new_page()
    page.goto(link)
    return page


def press_and_save(page: Page, key: str, endpoint: str = "/api/labels/") -> None:
    """Press a key of the annotate page (or another page saving to `endpoint`) and wait for the
    save it makes."""
    with page.expect_response(lambda r: endpoint in r.url) as saved:
        page.keyboard.press(key)
    assert saved.value.status == 200, saved.value.text()
