"""JSON over HTTP to one endpoint, with every failure told apart: retry it or not, and when.

Plain aiohttp rather than the `openai` SDK. Through the runner (cache on), a call cost 1.6–2.0 ms
of CPU on this 2-core machine with the SDK, even with its aiohttp transport and without its typed
`create()`, and 0.7 ms with this client. That held 64 concurrent calls to a 200 ms endpoint
at 0.88–0.92 of the ideal throughput with the SDK against 0.94 without it, and 256 at 0.45
against 0.86 (benchmarks/runner_overhead.py). The request and response format is
`openai_format`'s; auth is a bearer header.

A redirect is followed only within the endpoint's origin (scheme, host and port): aiohttp's own
following would send every configured header but `Authorization`, and a 307's body, to
wherever the server points.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import socket
import urllib.request
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import aiohttp
import orjson
from yarl import URL

from dialbench.llm.base import ModelError
from dialbench.llm.redaction import header_secrets, url_secrets
from dialbench.llm.specs import without_credentials
from dialbench.version import __version__

RETRYABLE_STATUS = frozenset({408, 409, 429}) | frozenset(range(500, 600))
REDIRECT_STATUS = frozenset({301, 302, 303, 307, 308})
MAX_REDIRECTS = 5


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """Seconds to wait from `retry-after-ms` / `Retry-After` (seconds or an HTTP date)."""
    if value := headers.get("retry-after-ms"):
        try:
            return float(value) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def error_message(body: bytes) -> str:
    """The server's own words: OpenAI's `error.message`, FastAPI's `detail`, else the text."""
    try:
        payload = orjson.loads(body)
    except orjson.JSONDecodeError:
        payload = None
    if isinstance(payload, dict):
        error = payload.get("error")
        for said in (
            error.get("message") if isinstance(error, dict) else error,
            payload.get("detail"),
            payload.get("message"),
        ):
            if said:
                return str(said)
    return body.decode("utf-8", "replace").strip() or "(empty body)"


def proxy_from_environment(url: str) -> str | None:
    """The proxy HTTP(S)_PROXY and NO_PROXY give for `url`.

    Looked up once per client: aiohttp's `trust_env` looks it up on every request, which cost
    40 % of the throughput at 256 concurrent calls.
    """
    parts = urlsplit(url)
    if parts.hostname and urllib.request.proxy_bypass(parts.hostname):
        return None
    return urllib.request.getproxies().get(parts.scheme)


def url_with_path(base_url: str, path: str) -> str:
    """`path` appended to the base URL's path, before any query (`...v1?key=x` + `/chat`)."""
    parts = urlsplit(base_url)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + path))


def _origin(url: URL) -> str:
    """scheme://host[:port], which holds no credentials; a URL that has none, as it reads."""
    try:
        return str(url.origin())
    except ValueError:  # a relative URL, or one of a scheme without hosts (mailto:)
        return without_credentials(str(url))


def redirect_target(url: URL, location: str) -> URL:
    """Where a redirect from `url` leads, or a `ModelError` when that is another origin: the
    configured headers (a key) are for the endpoint's origin alone."""
    try:
        target = url.join(URL(location))
    except ValueError as error:
        raise ModelError(f"a redirect from {_origin(url)} to no valid URL: {error}") from None
    if not target.absolute or target.origin() != url.origin():
        raise ModelError(
            f"refused a redirect from {_origin(url)} to {_origin(target)}: configured headers "
            "are never sent to another origin"
        )
    return target


def redirected_method(status: int, method: str) -> str:
    """The method a redirect asks for: a 303 turns all but HEAD into GET, a 301 or 302 a POST
    (as browsers and aiohttp do, without the body); a 307 or 308 keeps method and body."""
    if (status == 303 and method != "HEAD") or (status in (301, 302) and method == "POST"):
        return "GET"
    return method


CONNECT_CHECK_S = 5.0


def check_reachable(url: str, proxy: str | None = None) -> None:
    """Raise `ModelError` unless a TCP connection to the URL's host (or its proxy) opens: the one
    check that finds an unreachable server before a job starts, whatever routes it serves."""
    parts = urlsplit(proxy or url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        socket.create_connection((parts.hostname or "", port), timeout=CONNECT_CHECK_S).close()
    except OSError as error:
        shown = f"the proxy for {urlsplit(url).hostname}" if proxy else f"{parts.hostname}:{port}"
        raise ModelError(f"cannot connect to {shown}: {error.strerror or error}") from None


class JsonHttpClient:
    """JSON to and from `base_url` + path; one connection pool per event loop (aiohttp's rule).

    Concurrency and pacing are the runner's job, so the pool itself is unbounded.
    """

    def __init__(self, base_url: str, headers: Mapping[str, str], timeout_s: float) -> None:
        """`headers`: the configured ones (a key, a chatbot's own), sent to `base_url`'s origin
        alone and kept out of error texts (`secrets`, with the URL's credentials)."""
        self.base_url = base_url
        self.timeout_s = timeout_s
        self.secrets = header_secrets(headers) | url_secrets(base_url)
        self._headers = {
            "User-Agent": f"dialbench/{__version__}",
            "Content-Type": "application/json",
            **headers,
        }
        self._proxy = proxy_from_environment(self.base_url)
        self._sessions: dict[asyncio.AbstractEventLoop, aiohttp.ClientSession] = {}
        self._urls: dict[str, URL] = {}

    def check(self) -> None:
        check_reachable(self.base_url, self._proxy)

    def _url(self, path: str) -> URL:
        """Parsed once per path: building and parsing it per request was 3 % of a judge run."""
        url = self._urls.get(path)
        if url is None:
            url = self._urls[path] = URL(url_with_path(self.base_url, path))
        return url

    def _session(self) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        session = self._sessions.get(loop)
        if session is None:
            session = aiohttp.ClientSession(
                headers=self._headers,
                timeout=aiohttp.ClientTimeout(total=self.timeout_s),
                connector=aiohttp.TCPConnector(limit=0),
                proxy=self._proxy,
            )
            self._sessions[loop] = session
        return session

    async def post(self, path: str, body: Mapping[str, Any]) -> Any:
        """The decoded JSON reply, or a `ModelError` saying whether to try again."""
        return await self.send_json("POST", path, body)

    async def send_json(self, method: str, path: str, body: Any) -> Any:
        """`post` with another method (an HTTP chatbot's PUT or PATCH), any JSON as the body."""
        return self._decoded(await self._send(method, path, data=orjson.dumps(body)))

    async def get(self, path: str) -> Any:
        return self._decoded(await self._send("GET", path))

    async def get_bytes(self, path: str) -> bytes:
        return await self._send("GET", path)

    async def upload(self, path: str, fields: Mapping[str, str], name: str, content: bytes) -> Any:
        """A multipart form (OpenAI's `/files`): the fields and one file."""
        form = aiohttp.FormData(dict(fields))
        form.add_field("file", content, filename=name, content_type="application/jsonl")
        writer = form()
        headers = {"Content-Type": writer.content_type}
        return self._decoded(await self._send("POST", path, data=writer, headers=headers))

    async def _send(self, method: str, path: str, **arguments: Any) -> bytes:
        url = self._url(path)
        try:
            for _ in range(MAX_REDIRECTS + 1):
                async with self._session().request(
                    method, url, allow_redirects=False, **arguments
                ) as response:
                    payload = await response.read()
                location = response.headers.get("Location")
                if response.status not in REDIRECT_STATUS or location is None:
                    break
                url = redirect_target(url, location)
                asked = redirected_method(response.status, method)
                if asked != method:  # the body is not sent again
                    method, arguments = asked, {}
            else:
                raise ModelError(f"more than {MAX_REDIRECTS} redirects from {_origin(url)}")
        except TimeoutError as error:
            raise ModelError(f"no reply within {self.timeout_s:g}s", retryable=True) from error
        except aiohttp.ClientError as error:  # refused, reset, truncated body, ...
            raise ModelError(f"{type(error).__name__}: {error}", retryable=True) from error
        if response.status >= 400:
            raise ModelError(
                f"HTTP {response.status}: {error_message(payload)}",
                retryable=response.status in RETRYABLE_STATUS,
                retry_after_s=retry_after_seconds(response.headers),
            )
        return payload

    @staticmethod
    def _decoded(payload: bytes) -> Any:
        """The body as JSON. orjson refuses the escape of a lone surrogate (`"\\ud800"`), which
        JSON's grammar allows: the standard library reads such a body, and the reply is then
        made fit to store (`reply_text.py`)."""
        try:
            return orjson.loads(payload)
        except orjson.JSONDecodeError as error:
            try:
                return json.loads(payload)
            except ValueError:
                raise ModelError(f"malformed response body: {error}", retryable=True) from error

    async def aclose(self) -> None:
        session = self._sessions.pop(asyncio.get_running_loop(), None)
        if session is not None:
            await session.close()
