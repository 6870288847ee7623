"""One logical submission, one Idempotency-Key: sent again unchanged (Retry), a request keeps its key.

So a create whose answer was lost (a 502, a dropped connection) can be retried without making
two. Only a hash of the body is kept: it may hold a tool's credential.
"""

from __future__ import annotations

import hashlib

from vap_console.api.client import new_idempotency_key


def fingerprint(body: str | bytes) -> str:
    """What "the same request" means: the same bytes of body (a hash, never the body itself)."""
    return hashlib.sha256(body.encode() if isinstance(body, str) else body).hexdigest()


class Submission:
    def __init__(self) -> None:
        self._digest: str | None = None
        self._key = ""

    def key_for(self, body: str | bytes) -> str:
        """The key of this body: the last one again for the same body, a new one for another."""
        digest = fingerprint(body)
        if digest != self._digest:
            self._digest, self._key = digest, new_idempotency_key()
        return self._key

    @property
    def key(self) -> str | None:
        return self._key or None
