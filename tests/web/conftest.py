"""Fixtures of the web app's tests: a run to serve, the app over it and clients with a session."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from chromium import chromium
from fastapi import FastAPI
from fastapi.testclient import TestClient
from playwright.sync_api import Browser
from web_run import ORGANISER_TOKEN, Client, WebRun, make_web_run

from dialbench.hashing import sha256_text
from dialbench.web.app import create_app


@pytest.fixture
def web_run(tmp_path: Path) -> WebRun:
    return make_web_run(tmp_path / "run")


@pytest.fixture
def app(web_run: WebRun) -> FastAPI:
    return create_app(web_run.path, sha256_text(ORGANISER_TOKEN))


@pytest.fixture
def client(app: FastAPI) -> Iterator[Client]:
    """A client that opened the secret link with this token (None: no link opened)."""
    opened: list[TestClient] = []

    def make(token: str | None) -> TestClient:
        browser = TestClient(app, follow_redirects=False)
        browser.__enter__()
        opened.append(browser)
        if token is not None:
            entered = browser.get("/enter", params={"token": token})
            assert entered.status_code == 303, entered.text
        return browser

    yield make
    for browser in opened:
        browser.__exit__(None, None, None)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched
