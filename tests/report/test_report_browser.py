"""The report as a reader sees it: `dialbench report` through the console script, opened in
headless Chromium (installed by `make test`), with its heatmaps drawn and its tables present."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from known_judgments import JUDGES, make_store
from PIL import Image

from dialbench.report.writer import write_report
from dialbench.store import RunStore
from tests.conftest import RunCli

pytestmark = pytest.mark.slow
CHROMIUM = Path("/usr/bin/chromium")


def chromium(profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs it (apt-get install chromium)")
    command = [
        str(CHROMIUM),
        *("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"),
        *("--disable-background-networking", "--disable-component-update", "--disable-sync"),
        f"--user-data-dir={profile}",
        *args,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = make_store(tmp_path_factory.mktemp("run"))
    with RunStore.open(run) as store:
        write_report(store, run / "report")
    return run


def test_the_report_renders_with_heatmaps_and_tables(cli: RunCli, report: Path) -> None:
    done = cli("report", report)
    index = report / "report" / "index.html"
    assert f"wrote {index}" in done.stdout.replace("\n", "")
    dom = chromium(report / "profile", "--dump-dom", index.as_uri()).stdout
    for judge in JUDGES:
        assert f'<img src="plots/issues_heatmap_{judge}.png"' in dom
    csv_files = list((report / "report" / "tables").glob("*.csv"))
    assert dom.count("<table") == len(csv_files) == 11
    assert "Judge configurations" in dom
    assert "Issues and overall score per chatbot and language" in dom
    assert "50% (4/8)" in dom
    assert "100% [100–100]" in dom  # bot-b's repetitive rate in German, with its interval
    assert "Differences that hold" in dom


def test_the_heatmaps_are_drawn_in_the_page(report: Path, tmp_path: Path) -> None:
    """The screenshot shows the red issue cells: the images load, not just their tags."""
    index = report / "report" / "index.html"
    shot = tmp_path / "report.png"
    chromium(
        tmp_path / "profile", "--window-size=1300,1400", f"--screenshot={shot}", index.as_uri()
    )
    pixels = np.asarray(Image.open(shot).convert("RGB")).astype(int)
    deep_red = (pixels[..., 0] > 90) & (pixels[..., 0] < 140) & (pixels[..., 1] < 30)
    assert deep_red.sum() > 500  # the 100% "repetitive" cells of bot-b in German
