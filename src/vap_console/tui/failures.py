"""How a failure is put into words, and the one message that carries it to the one handler.

A worker that fails lands in ``VapApp.worker_failed``; a screen that wants a Retry for it posts
(or lets its worker raise into) an :class:`ApiFailed` naming the error and what Retry calls.
"""

from __future__ import annotations

from vap_console.api import errors


def error_title(error: BaseException) -> str:
    if isinstance(error, errors.ApiError):
        return f"HTTP {error.status} · {error.code}" if error.status else error.code
    return type(error).__name__


def describe_error(error: BaseException) -> str:
    """A sentence naming the code; never the request, never the key."""
    if isinstance(error, errors.ApiError):
        return str(error)
    # A bug, not an API answer: say so plainly rather than crash the console.
    return f"Unexpected {type(error).__name__}: {error}"
