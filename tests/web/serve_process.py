"""`dialbench serve` as a user starts it, in a subprocess, for the browser and load tests and
the benchmark: it yields the base URL and the organiser's secret link it printed."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from dialbench.web.server import free_port

DIALBENCH = Path(sys.executable).with_name("dialbench")
LINK = re.compile(r"organiser link \(secret, valid until stopped\): (\S+)")


@dataclass
class Serving:
    base: str
    organiser_link: str
    process: subprocess.Popen[str]
    log: Path

    def stop(self) -> str:
        """Stop the server; returns what it logged (a file: a pipe nobody reads would fill up
        and block the server)."""
        if self.process.poll() is None:
            self.process.terminate()
        self.process.wait(timeout=30)
        return self.log.read_text(encoding="utf-8")


def _wait_for_port(port: int, process: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"dialbench serve exited with {process.returncode}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError("dialbench serve did not listen within 60 s")


@contextmanager
def serve(
    run: Path, *options: str, port: int | None = None, env: Mapping[str, str] | None = None
) -> Iterator[Serving]:
    """`dialbench serve RUN` on `port` (a free one unless given: a restart takes the same), in
    `env` (default: this process's environment)."""
    port = port or free_port()
    log = run.parent / f"serve-{port}.log"
    with log.open("w", encoding="utf-8") as stderr:
        process = subprocess.Popen(
            [str(DIALBENCH), "serve", str(run), "--port", str(port), *options],
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            env=env,
        )
    assert process.stdout is not None
    announced = process.stdout.readline().strip()
    if announced != f"dialbench serving {run} at http://127.0.0.1:{port}/":
        process.kill()
        raise RuntimeError(f"unexpected first line from dialbench serve: {announced!r}")
    found = LINK.search(process.stdout.readline())
    assert found is not None
    serving = Serving(f"http://127.0.0.1:{port}", found.group(1), process, log)
    try:
        _wait_for_port(port, process)
        yield serving
    finally:
        serving.stop()
