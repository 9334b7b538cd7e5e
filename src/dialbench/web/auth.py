"""Secret links and what they grant: tokens are random, kept only as SHA-256, compared in
constant time; a write needs a CSRF token derived from the session, which another site's page
cannot read."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

from dialbench.hashing import sha256_text
from dialbench.schema import Annotator

COOKIE = "dialbench_session"
CSRF_HEADER = "x-csrf-token"


def new_token() -> str:
    return secrets.token_urlsafe(32)


@dataclass(frozen=True)
class Session:
    """Who holds the presented token: the organiser, or one annotator."""

    token_hash: str
    annotator: Annotator | None = None

    @property
    def is_organiser(self) -> bool:
        return self.annotator is None


def identify(token: str, organiser_hash: str, annotators: list[Annotator]) -> Session | None:
    """The session a token opens, or None. Every stored hash is compared, in constant time, so
    the answer's timing says nothing about how close a guess came."""
    presented = sha256_text(token)
    found: Session | None = None
    if hmac.compare_digest(presented, organiser_hash):
        found = Session(presented)
    for annotator in annotators:
        if hmac.compare_digest(presented, annotator.token_sha256) and annotator.revoked_at is None:
            found = Session(presented, annotator)
    return found


def csrf_token(server_secret: bytes, session: Session) -> str:
    """Bound to the session and to this server process: valid for no one else."""
    return hmac.new(server_secret, session.token_hash.encode(), hashlib.sha256).hexdigest()


def csrf_valid(server_secret: bytes, session: Session, presented: str | None) -> bool:
    return presented is not None and hmac.compare_digest(
        csrf_token(server_secret, session), presented
    )
