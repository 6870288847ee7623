"""What came back, and the ApiError for each way a call can fail to get a usable answer.

Every message says what was asked, what came back and what to do, and keeps nothing of the
request (its headers hold the key). VapClient's module docstring lists the failures; sending.py
decides which of them are retried.
"""

from __future__ import annotations

import email.utils
import json as _json
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx

from vap_console.api import errors

if TYPE_CHECKING:
    from pydantic import ValidationError

MIB = 1024 * 1024


@dataclass
class Answer:
    """A final answer: the status and the body as read (None when not read or unreadable)."""

    method: str
    what: str
    status: int
    content_type: str
    body: bytearray | None
    idempotency_key: str | None
    request_id: str | None = None


_REQUEST_ID = re.compile(r"[A-Za-z0-9._:/+=-]{1,128}")


def request_id(headers: httpx.Headers) -> str | None:
    """The server's ``x-request-id`` when it is a plausible id (it is quoted to people)."""
    value = headers.get("x-request-id", "").strip()
    return value if _REQUEST_ID.fullmatch(value) else None


class BodyTooLarge(Exception):
    """A 2xx body over max_response_bytes (``size`` when Content-Length said so up front)."""

    def __init__(self, size: int | None) -> None:
        self.size = size


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (integer seconds or an HTTP date), or None."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
            seconds = when.timestamp() - (time.time() if now is None else now)
        except (TypeError, ValueError, IndexError, OverflowError, AttributeError):
            return None
    if seconds != seconds:  # NaN
        return None
    return max(0.0, seconds)


def describe_validation(error: ValidationError, limit: int = 3) -> str:
    """``timeline is missing; count: Input should be a valid integer`` — no input values shown."""
    parts = []
    for item in error.errors(include_input=False, include_url=False)[:limit]:
        loc = ""
        for piece in item["loc"]:
            loc += f"[{piece}]" if isinstance(piece, int) else (f".{piece}" if loc else str(piece))
        loc = loc or "body"
        if item["type"] == "missing":
            parts.append(f"{loc} is missing")
        else:
            parts.append(f"{loc}: {item['msg']}")
    more = error.error_count() - limit
    if more > 0:
        parts.append(f"and {more} more")
    return "; ".join(parts)


def not_json(answer: Answer, why: str, base_url: str) -> str:
    """What to say of a 2xx body that is not JSON (``why``: the parser's complaint)."""
    size = len(answer.body or b"")
    media = _content_type(answer.content_type)
    got = (f"empty ({media})" if not size
           else f"not JSON ({media}, {size:,} bytes: {_shorten(why, 120)})")
    return (f"The answer to {answer.what} is {got}: check the base URL {base_url}; "
            "a proxy or login page may be answering")


def attempt_failure(
    what: str,
    is_post: bool,
    status: int | None,
    problem: BaseException | None,
    started: bool,
    call_bound: bool,
    *,
    base_url: str,
    request_timeout: float,
    total_timeout: float,
    max_response_bytes: int,
) -> errors.ApiError:
    """The error for an attempt that ended without a usable answer (``problem`` None: the
    deadline passed). ``status`` is set when a 2xx arrived but its body could not be had;
    ``started``: sending the body had begun; ``call_bound``: the call's deadline, not the
    attempt's, was the one that passed."""
    if problem is None:
        within = (f"the {total_timeout:g} s allowed for the call" if call_bound
                  else f"{request_timeout:g} s")
        advice = ("the server or the network is slow or stalled; try again, or raise "
                  "request_timeout under [network] in config.toml")
        if status is not None:
            if is_post:
                return errors.OutcomeUnknown(
                    f"{what} was answered HTTP {status} but the body did not arrive within "
                    f"{within}", status=status)
            return errors.TimedOut(
                f"The answer to {what} did not arrive in full within {within}: {advice}",
                status=status)
        if is_post and not started:
            return errors.TimedOut(
                f"{what} was not sent: no connection within {within}; check the network "
                f"and the base URL {base_url}")
        if is_post:
            return errors.OutcomeUnknown(f"{what} was sent but no answer came within {within}")
        return errors.TimedOut(f"No answer to {what} within {within}: {advice}")
    if isinstance(problem, BodyTooLarge):
        size = f"{problem.size:,} bytes" if problem.size is not None else "more"
        return errors.ResponseTooLarge(
            f"The answer to {what} is over the {_mib(max_response_bytes)} limit ({size}): "
            f"raise max_response_mib under [network] in config.toml (max_response_bytes "
            f"for VapClient) if this much data is expected",
            status=status, max_bytes=max_response_bytes, maybe_applied=is_post,
        )
    if isinstance(problem, httpx.DecodingError):
        return errors.UnexpectedResponse(
            f"The answer to {what} could not be decoded ({_reason(problem)}): its body does "
            f"not match its Content-Encoding; check the base URL {base_url} and any "
            "proxy in between",
            status=status, maybe_applied=is_post,
        )
    if status is not None:
        reason = _reason(problem)
        if is_post:
            return errors.OutcomeUnknown(
                f"{what} was answered HTTP {status} but the connection ended before the body "
                f"arrived ({reason})", status=status)
        if isinstance(problem, (httpx.TimeoutException, TimeoutError)):
            return errors.TimedOut(f"The answer to {what} stopped arriving ({reason})",
                                   status=status)
        return errors.ConnectionFailed(
            f"The connection was lost while reading the answer to {what}: {reason}",
            status=status)
    return _transport_failure(problem, what, is_post, base_url)


def error_answer(
    answer: Answer, headers: httpx.Headers, retry_after: float | None, base_url: str
) -> errors.ApiError:
    """The error for a non-2xx answer: the API's own error body when there is one, else the
    status's meaning, else UnexpectedResponse saying what came back."""
    status, what, is_post = answer.status, answer.what, answer.method == "POST"
    if 300 <= status < 400:
        location = headers.get("location")
        # 303 See Other is how a server says "done, the result is over there".
        applied = is_post and status == 303
        if location:
            location = _shorten(location, 300)
            return errors.Redirected(
                f"The server redirected {what} to {location}; set the base URL to the new "
                "address", status=status, location=location, maybe_applied=applied)
        return errors.Redirected(
            f"{what} was answered with a redirect that names no address: check the base URL "
            f"{base_url}; a proxy or login page may be answering",
            status=status, maybe_applied=applied)
    body = _json_or_none(answer.body)
    if errors.has_error_body(body):
        return errors.error_from_body(status, body, retry_after)
    # Not the API's error body: a proxy, a gateway, a web server.
    if errors.error_class_for(status, None) is errors.ApiError:
        got = _content_type(answer.content_type) if answer.body else "no body"
        return errors.UnexpectedResponse(
            f"{what} was answered with {got}, not an answer of the API: check the base URL "
            f"{base_url}; a proxy or login page may be answering",
            status=status)
    failure = errors.error_from_body(status, None, retry_after)
    if is_post and status >= 500 and status != 503:
        # A gateway's 502/504 or a crash page: the request may have gone through behind it.
        failure.maybe_applied = True
    return failure


def means_not_supported(status: int, failure: errors.ApiError) -> bool:
    """A 404/405 on an extension path means "not here" — unless it names a code of the spec."""
    if status == 405:
        return True
    return status == 404 and type(failure) in (errors.ApiError, errors.NotFound)


def _is_protocol_error(exc: BaseException) -> bool:
    # h11 comes with httpcore, which httpx imports only when the first request goes out: imported
    # here, on a failure, so that importing the client stays as light as it was.
    import h11

    return isinstance(exc, (httpx.ProtocolError, h11.ProtocolError, httpx.DecodingError))


def _transport_failure(
    exc: BaseException, what: str, is_post: bool, base_url: str
) -> errors.ApiError:
    """Map a failure before any answer to our error, keeping nothing of the request (its headers
    hold the key)."""
    reason = _reason(exc)
    if isinstance(exc, (httpx.ConnectError, httpx.ProxyError)):
        failure: errors.TransportError = errors.ConnectionFailed(f"Could not connect to {base_url}: {reason}")
        failure.unreachable = True
        return failure
    if isinstance(exc, (httpx.ConnectTimeout, httpx.PoolTimeout)):
        failure = errors.TimedOut(f"Could not connect to {base_url} in time; {what} was not sent")
        # A full pool of our own connections is no sign of the server's.
        failure.unreachable = isinstance(exc, httpx.ConnectTimeout)
        return failure
    timeout = isinstance(exc, (httpx.TimeoutException, TimeoutError))
    if is_post:
        return errors.OutcomeUnknown(
            f"{what} was sent but no answer came in time" if timeout
            else f"{what} was sent but the connection ended before the answer ({reason})"
        )
    if timeout:
        return errors.TimedOut(f"No answer to {what} in time")
    if _is_protocol_error(exc):
        return errors.ConnectionFailed(
            f"The answer to {what} broke the HTTP protocol ({reason}): check the base URL "
            f"{base_url}; something other than the API may be answering")
    return errors.ConnectionFailed(f"The connection was lost during {what}: {reason}")


def _json_or_none(data: bytes | bytearray | None) -> Any:
    if not data:
        return None
    try:
        return _json.loads(data)
    except (ValueError, RecursionError):  # not JSON, not UTF-8, or nested beyond reason
        return None


def _reason(exc: BaseException) -> str:
    return _shorten(str(exc), 200) or type(exc).__name__


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def _content_type(value: str) -> str:
    """The media type alone (``text/html``), for messages: parameters are noise there."""
    return _shorten(value.split(";", 1)[0].strip(), 100) or "no content type"


def _mib(n: int) -> str:
    return f"{n / MIB:g} MiB" if n >= MIB else f"{n:,} bytes"
