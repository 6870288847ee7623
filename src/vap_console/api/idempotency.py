"""Idempotency-Keys: a fresh one, a caller's checked, and one per logical submission.

One logical submission, one Idempotency-Key: sent again unchanged (Retry), a request keeps its key.
So a create whose answer was lost (a 502, a dropped connection) can be retried without making
two. Only a hash of the body is kept: it may hold a tool's credential.
"""

from __future__ import annotations

import hashlib
import re
import uuid

# \Z, not $: a $ also matches before a final newline, which no header can carry.
_KEY_CHARS = re.compile(r"^[\x21-\x7e]{1,255}\Z")


def new_idempotency_key() -> str:
    """A fresh Idempotency-Key; pass the same one again to resend the same logical submission."""
    return str(uuid.uuid4())


def checked_idempotency_key(value: str | None) -> str:
    """The caller's key, or a fresh one; ValueError for one no server could take as a header."""
    if value is None:
        return new_idempotency_key()
    if not isinstance(value, str) or not _KEY_CHARS.match(value):
        raise ValueError("idempotency_key must be 1 to 255 printable ASCII characters, no spaces")
    return value


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


class BilledStarts:
    """One Idempotency-Key per thing a billed start is asked for (a web call with one agent),
    kept across the person's retries until an answer says what happened.

    A start whose answer was lost (``maybe_applied``) may be running and billing: the next ask for
    the same thing goes out under the same key, so a server that honours it answers with the
    first start instead of beginning a second. A success forgets the key (the next ask is a new
    start); so does a refusal when no earlier try is in doubt, since the server said nothing
    started and a server that keeps refusals per key would keep refusing."""

    def __init__(self) -> None:
        self._keys: dict[str, str] = {}
        self._in_doubt: set[str] = set()

    def key_for(self, what: str) -> str:
        """The key to send this start with: the kept one, or a new one."""
        return self._keys.setdefault(what, new_idempotency_key())

    def in_doubt(self, what: str) -> bool:
        """An earlier start of this thing got no usable answer: it may be running."""
        return what in self._in_doubt

    def failed(self, what: str, *, maybe_applied: bool) -> None:
        if maybe_applied:
            self._in_doubt.add(what)
        elif what not in self._in_doubt:
            self._keys.pop(what, None)

    def succeeded(self, what: str) -> None:
        self._keys.pop(what, None)
        self._in_doubt.discard(what)
