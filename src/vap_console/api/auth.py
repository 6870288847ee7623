"""The API key: added to a request only as it is sent, and masked everywhere else.

It is in no repr, str, log record or exception: the auth object masks itself, a log filter on
httpx's and httpcore's loggers redacts any bearer token, and scrub_key takes it out of an error
built from what a server sent back.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Generator

import httpx

from vap_console.api import errors
from vap_console.masking import visible_tail

# \Z, not $: a $ also matches before a final newline, which no header can carry.
_API_KEY_CHARS = re.compile(r"^[\x21-\x7e]+\Z")


def mask_key(key: str) -> str:
    """``…abcd``: enough to tell keys apart, never enough to use one (the rule: vap_console.masking)."""
    return f"…{visible_tail(key)}"


def is_header_safe(key: str) -> bool:
    """Whether the key can go into a header as it is: printable ASCII, no spaces."""
    return bool(_API_KEY_CHARS.match(key))


class BearerAuth(httpx.Auth):
    """Adds the key at send time, so it never sits in a dict of headers that could be printed."""

    def __init__(self, key: str) -> None:
        self._key = key

    @property
    def secret(self) -> str:
        return self._key

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        request.headers["Authorization"] = "Bearer " + self._key
        yield request

    def __repr__(self) -> str:
        return f"<BearerAuth {mask_key(self._key)}>"


def scrub_key(failure: errors.ApiError, secret: str) -> None:
    """Replace the key by its mask in the error's text: a hostile server may echo it back in a
    message, a detail, a Location or a content type."""
    hint = mask_key(secret)
    if secret in failure.message or any(secret in d.loc + d.message for d in failure.details):
        failure.message = failure.message.replace(secret, hint)
        failure.details = [
            errors.FieldError(d.loc.replace(secret, hint), d.message.replace(secret, hint))
            for d in failure.details
        ]
    location = getattr(failure, "location", None)
    if location and secret in location:
        failure.location = location.replace(secret, hint)  # type: ignore[attr-defined]  # getattr found one


class _ScrubSecrets(logging.Filter):
    """Belt and braces for httpx/httpcore DEBUG logs: a bearer token never reaches a handler."""

    _BEARER = re.compile(r"(?i)(bearer\s+)[^\s'\"\\,)]+")
    _HEADER = re.compile(r"(?i)(\(b?'authorization',\s*b?')[^']*(')")

    # A signed recording URL is a credential of its own (httpx logs each request's URL).
    _SIGNED = re.compile(r"(?i)([?&](?:[a-z-]*signature|sig|token)=)[^&\s'\"]+")

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        scrubbed = self._HEADER.sub(r"\1[redacted]\2", self._BEARER.sub(r"\1[redacted]", message))
        scrubbed = self._SIGNED.sub(r"\1[redacted]", scrubbed)
        if scrubbed != message:
            record.msg, record.args = scrubbed, ()
        return True


_SCRUB = _ScrubSecrets()
_SCRUBBED_LOGGERS = (
    "httpx", "httpcore", "httpcore.connection", "httpcore.http11", "httpcore.http2",
    "httpcore.proxy", "hpack", "h11",
)


def install_log_scrubber() -> None:
    for name in _SCRUBBED_LOGGERS:
        logger = logging.getLogger(name)
        if _SCRUB not in logger.filters:
            logger.addFilter(_SCRUB)
