"""The one rule for showing a secret (an API key, a web call's token): its last four characters,
and nothing of one shorter than twelve, where four characters would give away too much of it.

Imports nothing: the API client, the credentials (Textual-free) and the console all follow it,
each with its own way of marking what is hidden.
"""

from __future__ import annotations

SHOWN = 4
# A secret shorter than this shows nothing of itself.
MIN_LENGTH = 12


def visible_tail(secret: str | None) -> str:
    """What may be shown of ``secret``: its last four characters, or "" for a short one."""
    if not secret or len(secret) < MIN_LENGTH:
        return ""
    return secret[-SHOWN:]
