"""Serving the app with uvicorn for `dialbench serve`. Uvicorn's access log is off (it would
print the query string of a secret link); the app logs method, path and status itself."""

from __future__ import annotations

import ipaddress
import socket
from pathlib import Path

import uvicorn
from fastapi import FastAPI
from pydantic import Field

from dialbench.hashing import sha256_text
from dialbench.schema import Record
from dialbench.web.annotators import AssignmentSettings
from dialbench.web.app import create_app
from dialbench.web.auth import new_token
from dialbench.web.review_task import ReviewChoice

LOOPBACK = "127.0.0.1"


class ServeConfig(Record):
    host: str = LOOPBACK
    port: int = Field(default=8765, ge=0, le=65535)
    assignment: AssignmentSettings = Field(default_factory=AssignmentSettings)
    review: ReviewChoice | None = None


class Serving(Record):
    """What `serve` prints: where the app is, and the organiser's secret link for this start."""

    url: str
    organiser_link: str
    warning: str | None = None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        port: int = probe.getsockname()[1]
        return port


def port_in_use(host: str, port: int) -> bool:
    """Whether something listens on host:port already, tried as uvicorn binds (SO_REUSEADDR: a
    port a stopped server left in TIME_WAIT counts as free)."""
    family, kind, protocol, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    with socket.socket(family, kind, protocol) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError:
            return True
    return False


def exposure_warning(host: str) -> str | None:
    """A warning when the app listens beyond this machine."""
    try:
        if ipaddress.ip_address(host).is_loopback:
            return None
    except ValueError:
        if host == "localhost":
            return None
    return (
        f"listening on {host}: anyone who can reach this machine can try links; dialogue text and "
        "labels travel unencrypted (put it behind HTTPS)"
    )


def uvicorn_server(app: FastAPI, host: str, port: int) -> uvicorn.Server:
    config = uvicorn.Config(
        app, host=host, port=port, access_log=False, log_level="warning", lifespan="on"
    )
    return uvicorn.Server(config)


def prepare(run_dir: str | Path, config: ServeConfig) -> tuple[FastAPI, Serving]:
    """The app with a fresh organiser token (valid until the server stops), and its links."""
    token = new_token()
    app = create_app(run_dir, sha256_text(token), config.assignment, config.review)
    url = f"http://{config.host}:{config.port}/"
    return app, Serving(
        url=url, organiser_link=f"{url}enter?token={token}", warning=exposure_warning(config.host)
    )
