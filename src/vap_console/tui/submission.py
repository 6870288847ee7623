"""One logical "create" in a dialog: sent again unchanged (Retry), it keeps its Idempotency-Key.

So a create whose answer was lost (a 502, a dropped connection) can be retried without making
two. Only a hash of the body is kept: it may hold a tool's credential.
"""

from __future__ import annotations

import hashlib

from vap_console.api import new_idempotency_key


class Submission:
    def __init__(self) -> None:
        self._digest: str | None = None
        self._key = ""

    def key_for(self, body_json: str) -> str:
        digest = hashlib.sha256(body_json.encode()).hexdigest()
        if digest != self._digest:
            self._digest, self._key = digest, new_idempotency_key()
        return self._key
