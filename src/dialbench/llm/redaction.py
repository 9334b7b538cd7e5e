"""Secrets out of error texts, before they are stored or printed.

A server may echo what it was sent: the key it refused, the header it did not expect, the URL
with its `?api_key=`. Each backend knows the secrets it sends (`ModelAPI.secrets`); the runner
redacts them, and whatever looks like a credential in a URL or a bearer header, from every
error a call ends with, so no backend can forget to (`shown_error`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from urllib.parse import parse_qsl, urlsplit

from dialbench.llm.reply_text import encodable

REDACTED = "[redacted]"
SHORTEST_SECRET = 4
"""Shorter values are no secret worth the name, and replacing them would garble the text."""
ERROR_TEXT_LIMIT = 500
"""Characters of an error's text kept: a server's body or a bot's exception may be megabytes,
and the text is stored with each failed dialogue or judgment."""

CREDENTIAL_WORDS = r"key|token|secret|password|passwd|auth|signature|sig"
"""What a query parameter's name holds when its value is a credential (api_key, access_token)."""
_CREDENTIAL_NAME = re.compile(CREDENTIAL_WORDS, re.IGNORECASE)
_CREDENTIAL_IN_TEXT = re.compile(
    rf"(?<=[?&])([^=&#\s]*(?:{CREDENTIAL_WORDS})[^=&#\s]*)=[^&#\s\"'<>]*", re.IGNORECASE
)
_USERINFO_IN_TEXT = re.compile(r"(?<=://)[^/?#@\s]+@")
_BEARER = re.compile(r"(?<=\bBearer )[^\s\"',;]+", re.IGNORECASE)


def header_secrets(headers: Mapping[str, str]) -> frozenset[str]:
    """The values of configured headers, and the credential after an auth scheme
    (`Bearer KEY` gives `KEY` too): a server may echo either."""
    secrets = set()
    for value in headers.values():
        secrets.add(value.strip())
        scheme, _, credential = value.strip().partition(" ")
        if credential and scheme.isalpha():
            secrets.add(credential.strip())
    return frozenset(secrets)


def url_secrets(url: str) -> frozenset[str]:
    """A URL's credentials: its userinfo and the values of its credential-like parameters."""
    parts = urlsplit(url)
    values = [parts.username or "", parts.password or ""]
    values += [v for name, v in parse_qsl(parts.query) if _CREDENTIAL_NAME.search(name)]
    return frozenset(value for value in values if value)


def redacted(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with each of `secrets`, any URL's userinfo and credential-like parameter values,
    and any bearer token replaced by `[redacted]`."""
    known = sorted({s for s in secrets if len(s) >= SHORTEST_SECRET}, key=len, reverse=True)
    if known:
        text = re.sub("|".join(map(re.escape, known)), REDACTED, text)
    text = _CREDENTIAL_IN_TEXT.sub(rf"\1={REDACTED}", text)
    text = _USERINFO_IN_TEXT.sub(f"{REDACTED}@", text)
    return _BEARER.sub(REDACTED, text)


def shown_error(error: object, secrets: Iterable[str] = ()) -> str:
    """An error's text as it may be stored or printed: `redacted` whole, then cut to
    `ERROR_TEXT_LIMIT` characters (so no secret is cut in half before it could be found), and
    storable (`encodable`)."""
    text = encodable(redacted(str(error), secrets))
    return text if len(text) <= ERROR_TEXT_LIMIT else text[: ERROR_TEXT_LIMIT - 1] + "…"
