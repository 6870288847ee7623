"""Sending one call: the retry rules, the deadlines, the body's size cap (Sender.send).

Retry rules (DESIGN §2):

* GET and DELETE are retried on connection errors, timeouts, 429, 502 and 503, with exponential
  backoff and jitter, waiting Retry-After when the server sends it (capped at 60 s).
* POST is retried only on 429: the server says it did not process the request. Any other failure
  of a POST is raised as it is. A POST whose outcome is unknown (connection lost after it was sent,
  read timeout, deadline passed after sending) raises OutcomeUnknown and is never resent; a
  connect error before anything was sent raises ConnectionFailed, which is safe to retry.
* Every POST carries an Idempotency-Key, the caller's when given so that a retried submission is
  the same submission to the server.

Deadlines (the loop's clock, ``asyncio.timeout_at``):

* Each attempt has ``request_timeout`` (30 s) for everything: connecting, sending, waiting, and
  reading the whole body. httpx's ``timeout`` (10 s) bounds each connect and write, and each read
  of the body once the answer's head has come; waiting for the head is bounded by the attempt's
  deadline alone (a server that takes 20 s to answer is waited for, not asked three times and
  cut off each time at 10 s). A body that stalls ends after ``timeout``; a body trickling in a
  byte at a time ends at the deadline.
* Each call has ``total_timeout`` (120 s, as the vendor's SDK) across its attempts and the waits
  between them: no retry is begun whose wait would end after it, and no attempt runs past it.
* Every byte sent or received pushes both deadlines later by ``1 / min_transfer_rate`` seconds
  (16 KiB/s, ~128 kbit/s): ten 5 MB documents on a slow uplink, or a 20 MB page on a slow link,
  are never cut off while they move at least that fast; a stall or a trickle is.
* When a deadline passes, a GET or DELETE raises TimedOut (retryable); a POST raises
  OutcomeUnknown once any of its body was handed to the network, else TimedOut (nothing sent).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json as _json
import logging
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import httpx

from vap_console.api import errors
from vap_console.api.answers import (
    Answer,
    BodyTooLarge,
    attempt_failure,
    error_answer,
    means_not_supported,
    parse_retry_after,
    request_id,
)
from vap_console.api.auth import BearerAuth, scrub_key
from vap_console.api.idempotency import checked_idempotency_key

if TYPE_CHECKING:
    # rental.py builds the rental models at import: a GET (every read-only command) never needs them.
    from vap_console.api.rental import ProgressCallback, RequestBody

# The client's name, not this module's: whoever listens to VapClient's retries keeps hearing them.
log = logging.getLogger("vap_console.api.client")

Sleep = Callable[[float], Awaitable[Any]]

MIB = 1024 * 1024
# An error body is read up to this much; beyond it the status alone says what happened.
ERROR_BODY_BYTES = MIB
# How long closing a response may take before the connection is simply dropped.
CLOSE_TIMEOUT = 5.0
# Retried for GET and DELETE (a 429 is decided on its own, for every method: should_retry).
RETRY_STATUSES = frozenset({502, 503})
# An error the server will repeat however often it is asked: not worth a retry.
_PERMANENT_CODES = frozenset({errors.NotConfigured.code_name, errors.CallsNotConfigured.code_name})


class CallSettings(Protocol):
    """What a Sender reads at each call: VapClient's public attributes, so that a change to one
    applies from the next call on."""

    max_retries: int
    backoff_base: float
    retry_after_cap: float
    request_timeout: float
    total_timeout: float
    min_transfer_rate: float
    max_response_bytes: int
    on_wait: Callable[[errors.ApiError, float], None] | None


class Sender:
    """Turns one call into attempts over the client's pooled httpx client: gives back a 2xx
    Answer, or raises the ApiError for the last failure with no trace of the API key."""

    def __init__(
        self,
        http: httpx.AsyncClient,
        auth: BearerAuth,
        base_url: str,
        settings: CallSettings,
        sleep: Sleep,
    ) -> None:
        self._http = http
        self._auth = auth
        self._base_url = base_url
        self._settings = settings
        self._sleep = sleep
        self._random = random.Random()
        # The last 2xx answer as it came (status, body bytes, x-request-id): what `vap … --json`
        # prints, so that a script sees exactly what the API returned, not a re-serialised model.
        self.last_answer: Answer | None = None

    async def send(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        json: Any = None,
        body: RequestBody | None = None,
        idempotency_key: str | None = None,
        on_progress: ProgressCallback | None = None,
        extension: bool = False,
        want_body: bool = True,
        max_retries: int | None = None,
    ) -> Answer:
        """Send with the retry rules and deadlines above; a 2xx answer, or an ApiError raised."""
        is_post = method == "POST"
        what = f"{method} {path}"
        if self._http.is_closed:
            raise errors.ApiError(f"{what} was not sent: this client is closed",
                                  code="client_closed")
        headers: dict[str, str] = {}
        if is_post:
            idempotency_key = checked_idempotency_key(idempotency_key)
            headers["Idempotency-Key"] = idempotency_key
            if body is None:
                from vap_console.api.rental import RequestBody

                body = RequestBody.of_json(_dumps(json))
        else:
            idempotency_key = None
        deadlines = Deadlines(self._settings)
        attempt = 0
        # Whether an earlier attempt may have reached the server (for DELETE's 404 below).
        reached = False
        while True:
            sent = _Sent()
            request = self._http.build_request(
                method,
                path,
                params=params,
                headers={**headers, **body.headers} if body is not None else headers,
                content=self._upload(body, on_progress, deadlines, sent) if body is not None else None,
                timeout=self._head_timeout(),
            )
            response: httpx.Response | None = None
            data: bytearray | None = None
            problem: BaseException | None = None
            expired = False
            scope: asyncio.Timeout | None = None
            try:
                async with asyncio.timeout_at(deadlines.start_attempt()) as scope:
                    deadlines.scope = scope
                    try:
                        response = await self._http.send(request, stream=True)
                        data = await self._read(response, deadlines, want_body)
                    finally:
                        if response is not None:
                            await _close_quietly(response)
            except TimeoutError as exc:
                if scope is not None and scope.expired():
                    expired = True
                else:
                    problem = exc
            except _attempt_failures() as exc:
                problem = exc
            finally:
                deadlines.scope = None

            status = response.status_code if response is not None else None
            ok = status is not None and 200 <= status < 300
            retry_status = status
            retry_after: float | None = None
            if (expired or problem is not None) and (status is None or ok):
                # No answer, or a 2xx whose body could not be had: nothing to map by status.
                settings = self._settings
                failure = attempt_failure(
                    what, is_post, status, problem, sent.started, deadlines.call_bound,
                    base_url=self._base_url, request_timeout=settings.request_timeout,
                    total_timeout=settings.total_timeout,
                    max_response_bytes=settings.max_response_bytes,
                )
                retry_status = None
                reached = reached or status is not None or not isinstance(problem, _BEFORE_SENDING)
            else:
                # An answer. A non-2xx whose body could not be read is judged by its status.
                assert response is not None and status is not None
                answer = Answer(method, what, status, response.headers.get("content-type", ""),
                                data if not (expired or problem is not None) else None,
                                idempotency_key)
                if ok:
                    answer.request_id = request_id(response.headers)
                    self.last_answer = answer
                    return answer
                retry_after = parse_retry_after(response.headers.get("retry-after"))
                failure = error_answer(answer, response.headers, retry_after, self._base_url)
                # What support needs to find this request in the server's logs.
                failure.request_id = request_id(response.headers)
                if (
                    method == "DELETE"
                    and reached
                    and status == 404
                    and isinstance(failure, (errors.AgentNotFound, errors.ToolNotFound, errors.NotFound))
                ):
                    # An earlier attempt got through before its answer was lost: it is gone.
                    return answer
                if extension and means_not_supported(status, failure):
                    failure = errors.NotSupported(
                        f"This server does not offer {method} {path}", status=status,
                    )
                elif status in (502, 503):
                    reached = reached or not is_post
            retries = self._settings.max_retries if max_retries is None else max_retries
            if attempt < retries and should_retry(method, retry_status, failure):
                delay = (
                    min(retry_after, self._settings.retry_after_cap)
                    if retry_after is not None
                    else self._backoff(attempt)
                )
                # The call's budget: no wait that would end after it (the caller hears the last
                # failure now, with its Retry-After, rather than a timeout later).
                if delay < deadlines.left():
                    attempt += 1
                    log.info("%s %s failed (%s); retry %d of %d in %.2f s", method, path,
                             failure.code, attempt, self._settings.max_retries, delay)
                    on_wait = self._settings.on_wait
                    if on_wait is not None:
                        on_wait(self.clean(failure, idempotency_key), delay)
                    await self._sleep(delay)
                    continue
            raise self.clean(failure, idempotency_key)

    async def _upload(
        self,
        body: RequestBody,
        on_progress: ProgressCallback | None,
        deadlines: Deadlines,
        sent: _Sent,
    ) -> AsyncIterator[bytes]:
        """The body as the transport pulls it: notes that sending began, and each chunk the
        transport takes buys time on the deadlines (a large upload on a slow link is not cut)."""
        async for chunk in body.stream(on_progress):
            sent.started = True
            yield chunk
            deadlines.moved(len(chunk))

    async def _read(
        self, response: httpx.Response, deadlines: Deadlines, want_body: bool
    ) -> bytearray | None:
        """The body, streamed with a running count against the size limit.

        A 2xx body over the limit raises BodyTooLarge; an error body over its smaller limit is
        dropped (the status still says what happened); a redirect's is never read.
        """
        status = response.status_code
        if 200 <= status < 300:
            if not want_body:
                return None
            limit, strict = self._settings.max_response_bytes, True
        elif 300 <= status < 400:
            return None
        else:
            limit, strict = min(self._settings.max_response_bytes, ERROR_BODY_BYTES), False
        declared = _content_length(response)
        if declared is not None and declared > limit:
            if strict:
                raise BodyTooLarge(declared)
            return None
        data = bytearray()
        counted = 0
        async for chunk in _each_within(response.aiter_bytes(), self._http.timeout.read):
            raw = response.num_bytes_downloaded
            deadlines.moved(raw - counted)
            counted = raw
            if len(data) + len(chunk) > limit:
                if strict:
                    raise BodyTooLarge(None)
                return None
            data += chunk
        return data

    def _head_timeout(self) -> httpx.Timeout:
        """httpx's timeouts for one attempt, but no read timeout: the wait for the answer's head
        is bounded by the attempt's deadline, and the body's reads by ``_each_within``."""
        timeout = self._http.timeout
        return httpx.Timeout(connect=timeout.connect, read=None, write=timeout.write, pool=timeout.pool)

    def _backoff(self, attempt: int) -> float:
        # "Equal jitter": half the exponential step fixed, half random, so waits still grow.
        step = self._settings.backoff_base * (2**attempt)
        return float(min(self._settings.retry_after_cap, step / 2 + self._random.uniform(0, step / 2)))

    def clean(self, failure: errors.ApiError, idempotency_key: str | None = None) -> errors.ApiError:
        """The error as raised: the POST's key attached, no trace of the API key."""
        if idempotency_key is not None:
            failure.idempotency_key = idempotency_key
        scrub_key(failure, self._auth.secret)
        failure.args = (failure._sentence(),)
        return failure


def should_retry(method: str, status: int | None, failure: errors.ApiError) -> bool:
    """The retry rules above, for one failure (``status`` None: no answer came)."""
    if status is None:
        # Transport failure: only idempotent methods, and not a broken configuration.
        return method != "POST" and failure.retryable
    if status == 429:
        # The budget's 429 says "not processed, ask again later"; a full set of call slots
        # says nothing of when one frees.
        return not isinstance(failure, errors.ConcurrencyLimitExceeded)
    if method == "POST":
        return False
    return status in RETRY_STATUSES and failure.code not in _PERMANENT_CODES


@dataclass
class _Sent:
    """Whether the transport began pulling the request body: the request head is out."""

    started: bool = False


class Deadlines:
    """The attempt's deadline and the call's, on the loop's clock. Each byte moved (sent or
    received) pushes both later by 1/min_transfer_rate seconds: a large body moving at a slow
    but real pace is not cut off, a stall or a trickle is."""

    def __init__(self, settings: CallSettings) -> None:
        self._loop = asyncio.get_running_loop()
        self._per_attempt = settings.request_timeout
        self._rate = settings.min_transfer_rate
        self.call_end = self._loop.time() + settings.total_timeout
        self.attempt_end = self.call_end
        self.scope: asyncio.Timeout | None = None

    def start_attempt(self) -> float:
        self.attempt_end = self._loop.time() + self._per_attempt
        return self.when

    @property
    def when(self) -> float:
        return min(self.attempt_end, self.call_end)

    @property
    def call_bound(self) -> bool:
        """Whether the call's budget, not the attempt's own deadline, is the nearer one."""
        return self.call_end < self.attempt_end

    def left(self) -> float:
        return self.call_end - self._loop.time()

    def moved(self, n: int) -> None:
        if n <= 0:
            return
        extra = n / self._rate
        self.attempt_end += extra
        self.call_end += extra
        scope = self.scope
        if scope is not None and not scope.expired():
            with contextlib.suppress(RuntimeError):  # the scope is closing: nothing left to extend
                scope.reschedule(self.when)


# What may end an attempt (besides its deadline), whatever the layer it comes from: httpx's own
# errors (DecodingError is not a TransportError), h11's and anyio's should one slip through
# httpcore's mapping, and the operating system's. Built on first use: h11 and anyio come with
# httpcore, which httpx imports only when the first request goes out (start-up stays as it was).
@functools.cache
def _attempt_failures() -> tuple[type[BaseException], ...]:
    import anyio
    import h11

    return (
        httpx.HTTPError, httpx.StreamError, httpx.InvalidURL, h11.ProtocolError,
        anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream, OSError,
        BodyTooLarge,
    )


# Failures that leave no doubt nothing was sent.
_BEFORE_SENDING = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout, httpx.ProxyError)


async def _each_within(chunks: AsyncIterator[bytes], seconds: float | None) -> AsyncIterator[bytes]:
    """The chunks, each of which must come within ``seconds`` of the one before (httpx's read
    timeout, applied to the body only): a body that stops arriving raises httpx.ReadTimeout."""
    while True:
        try:
            async with asyncio.timeout(seconds):
                chunk = await anext(chunks)
        except StopAsyncIteration:
            return
        except TimeoutError:
            raise httpx.ReadTimeout(f"no byte of the body for {seconds:g} s") from None
        yield chunk


async def _close_quietly(response: httpx.Response) -> None:
    """Close a streamed response; closing never turns an answer into a failure, nor hangs."""
    try:
        async with asyncio.timeout(CLOSE_TIMEOUT):
            await response.aclose()
    except (Exception, TimeoutError):  # noqa: BLE001 - the connection is dropped either way
        pass


def _content_length(response: httpx.Response) -> int | None:
    try:
        value = int(response.headers.get("content-length", ""))
    except ValueError:
        return None
    return value if value >= 0 else None


def _dumps(value: Any) -> bytes:
    return _json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
