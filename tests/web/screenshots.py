"""The annotate page at desktop and phone width, as the docs show it. The phone test saves them
with its artefacts; for the docs:

    PYTHONPATH=src .venv/bin/python tests/web/screenshots.py docs

writes docs/annotate_desktop.png and docs/annotate_phone.png from a scratch run (the tests' run:
three languages, a simulated user's rejected attempt, three annotators).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from chromium import DESKTOP, TOUCH, chromium, open_link, press_and_save
from playwright.sync_api import Browser
from serve_process import serve
from web_run import make_web_run

SHOTS = {
    "annotate_desktop.png": {"viewport": DESKTOP},
    "annotate_phone.png": {**TOUCH, "device_scale_factor": 2},
}


def annotate_screenshots(browser: Browser, link: str, page_url: str, folder: Path) -> list[Path]:
    """The whole page at `page_url` at each width, after a few labels typed as annotators do."""
    made = []
    for n, (name, options) in enumerate(SHOTS.items()):
        page = open_link(browser, link, **options)
        page.goto(page_url)
        page.wait_for_load_state()
        for key in ("e", "t", "2", "Shift+4") if n == 0 else ():
            press_and_save(page, key)  # lacks empathy, repetitive, overall 2, human-likeness 4
        made.append(folder / name)
        page.screenshot(path=made[-1], full_page=True)
        page.context.close()
    return made


def main() -> None:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "docs")
    with tempfile.TemporaryDirectory() as scratch:
        run = make_web_run(Path(scratch) / "run")
        shown = next(d for d in run.dialogues if d.participants.assistant == "bot-b")
        with serve(run.path) as serving, chromium() as browser:
            link = f"{serving.base}/enter?token={run.tokens['alice']}"
            for path in annotate_screenshots(
                browser, link, f"{serving.base}/annotate/{shown.id}", folder
            ):
                print(path)


if __name__ == "__main__":
    main()
